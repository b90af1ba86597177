import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { ApiProblem, api, unwrap, type Schemas } from '../api/client';
import { agentLanguageValues as LANGUAGES, agentPii_redactionCategoriesValues as PII_CATEGORIES, agentVoice_platformValues as PLATFORMS } from '../api/schema.generated';
import { describedBy, Field } from '../components/form-field';
import { ErrorNotice, Loading } from '../components/notices';
import { formatTime, humanize, platformName } from '../presentation/format';
import {
  agentChanges, agentFormOf, createAgentBody, emptyAgentForm, formPlaceOf, WEEKDAYS,
  type AgentFormValues, type DayHours, type FormErrors, type MetadataRow, type PiiCategory, type Weekday,
} from '../rules/agent-form';
import { inControlWords } from '../rules/problems';
import { Link } from '../router';
import { AgentActions, goToAgentsList, SyncState } from './agents';

export function AgentEditor({ id }: { id?: string }) {
  const query = useQuery({
    queryKey: ['agent', id],
    queryFn: () => unwrap(api.GET('/v1/agents/{id}', { params: { path: { id: id! } } })),
    enabled: id !== undefined,
    refetchInterval: (q) => (q.state.data?.data.platform_sync.state === 'pending' ? 2000 : false),
  });
  return (
    <>
      <p>
        <Link to="/agents">← Agents</Link>
      </p>
      {id === undefined ? (
        <>
          <h1>New agent</h1>
          <AgentForm />
        </>
      ) : query.isPending ? (
        <Loading what="the agent" />
      ) : query.isError ? (
        <ErrorNotice error={query.error} title="The agent could not be loaded" />
      ) : (
        <>
          <h1>{query.data.data.name}</h1>
          <dl className="facts">
            <div>
              <dt>Status</dt>
              <dd>
                <span className={`badge status-${query.data.data.status}`}>{humanize(query.data.data.status)}</span>
              </dd>
            </div>
            <div>
              <dt>Platform sync</dt>
              <dd>
                <SyncState agent={query.data.data} />
              </dd>
            </div>
            <div>
              <dt>Updated</dt>
              <dd>{formatTime(query.data.data.updated_at)}</dd>
            </div>
          </dl>
          <AgentActions agent={query.data.data} afterDelete={() => goToAgentsList(`Agent ${query.data.data.name} deleted.`)} />
          <h2>Edit</h2>
          <AgentForm key={query.data.data.id} agent={query.data.data} />
        </>
      )}
    </>
  );
}

/** The browser's own judgement of a time zone name (the API's is the same IANA database). */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const TIME_ZONES: readonly string[] = (() => {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  return intl.supportedValuesOf ? ['UTC', ...intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')] : ['UTC'];
})();

/** The request field each control stands for, as a person reads it: the server's message names the control. */
const CONTROL_LABELS: Record<string, string> = {
  name: 'Name', voice_platform: 'Voice platform', phone_number: 'Phone number', voice_id: 'Voice id', language: 'Language',
  system_prompt: 'System prompt', welcome_message: 'Welcome message', transfer_number: 'Transfer number',
  recording_enabled: 'Record calls', transcription_enabled: 'Transcribe calls', store_content: 'Store call content',
  pii_redaction: 'Redaction', retention: 'Retention', business_hours: 'Business hours', metadata: 'Metadata',
};

const PII_LABELS: Record<PiiCategory, string> = {
  phone_number: 'Phone numbers', email: 'Email addresses', credit_card: 'Card numbers', ssn: 'Social security numbers',
  iban: 'Bank account numbers (IBAN)', date_of_birth: 'Dates of birth', postal_address: 'Postal addresses', ip_address: 'IP addresses',
  caller_number: "The caller's own number (keeps its last 2 digits)",
};

function AgentForm({ agent }: { agent?: Schemas['Agent'] }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<AgentFormValues>(() => (agent ? agentFormOf(agent) : emptyAgentForm()));
  const [errors, setErrors] = useState<FormErrors>({});
  const [saved, setSaved] = useState(false);
  const [formProblem, setFormProblem] = useState<ApiProblem>();
  const save = useMutation({
    mutationFn: async (values: AgentFormValues) => {
      if (agent) {
        const { body, errors: local } = agentChanges(agent, values, isTimeZone);
        if (!body) throw local;
        return unwrap(api.PATCH('/v1/agents/{id}', { params: { path: { id: agent.id } }, body }));
      }
      const { body, errors: local } = createAgentBody(values, isTimeZone);
      if (!body) throw local;
      return unwrap(api.POST('/v1/agents', { body }));
    },
    onSuccess: async (result) => {
      await queryClient.invalidateQueries({ queryKey: ['agents'] });
      if (agent) {
        queryClient.setQueryData(['agent', agent.id], result);
        setSaved(true);
      } else {
        goToAgentsList(`Agent ${result.data.name} created.`);
      }
    },
    onError: (error, values) => {
      if (error instanceof ApiProblem) {
        const place = formPlaceOf(error.field, values);
        const top = error.field?.split(/[.[]/)[0] ?? '';
        if (place) setErrors({ [place]: inControlWords(error.message, error.field, CONTROL_LABELS[top] ?? top) });
        else setFormProblem(error);
      } else {
        setErrors(error as unknown as FormErrors);
      }
    },
  });
  const set = <K extends keyof AgentFormValues>(key: K, value: AgentFormValues[K]) => {
    setSaved(false);
    setForm((f) => ({ ...f, [key]: value }));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setErrors({});
    setFormProblem(undefined);
    save.mutate(form);
  };
  const errorCount = Object.keys(errors).length;
  const text = (key: 'name' | 'phone_number' | 'voice_id' | 'transfer_number' | 'welcome_message', label: string, hint?: string, props: Record<string, unknown> = {}) => (
    <Field id={`agent-${key}`} label={label} error={errors[key]} hint={hint}>
      <input id={`agent-${key}`} name={key} value={form[key]} onChange={(e) => set(key, e.target.value)} {...describedBy(`agent-${key}`, errors[key], hint)} {...props} />
    </Field>
  );
  const check = (key: 'recording_enabled' | 'transcription_enabled' | 'store_content' | 'pii_redaction_enabled', label: string, hint?: string) => (
    <div className={`field check${hint ? ' with-hint' : ''}`}>
      <input id={`agent-${key}`} type="checkbox" checked={form[key]} onChange={(e) => set(key, e.target.checked)} aria-describedby={hint ? `agent-${key}-hint` : undefined} />
      <label htmlFor={`agent-${key}`}>{label}</label>
      {hint ? (
        <small id={`agent-${key}-hint`} className="muted">
          {hint}
        </small>
      ) : null}
      {errors[key] ? <p className="field-error" role="alert">{errors[key]}</p> : null}
    </div>
  );
  const retentionField = (key: 'conversations_days' | 'recordings_days', label: string, hint: string) => {
    const id = `agent-retention-${key}`;
    const error = errors[`retention.${key}`];
    const value = form[`retention_${key}`];
    return (
      <Field id={id} label={label} error={error} hint={hint}>
        <input id={id} type="number" min={1} max={3650} step={1} inputMode="numeric" value={value} onChange={(e) => set(`retention_${key}`, e.target.value)} {...describedBy(id, error, hint)} />
      </Field>
    );
  };
  return (
    <form className="agent-form" onSubmit={submit} noValidate>
      {formProblem ? <ErrorNotice error={formProblem} title="The agent could not be saved" /> : null}
      {errorCount > 1 ? (
        <p className="notice error" role="alert">
          {errorCount} fields need a change before the agent can be saved.
        </p>
      ) : null}
      {saved ? (
        <p className="notice ok" role="status">
          Saved.
        </p>
      ) : null}
      {text('name', 'Name', undefined, { required: true, autoComplete: 'off' })}
      <Field id="agent-voice_platform" label="Voice platform" error={errors.voice_platform}>
        <select id="agent-voice_platform" value={form.voice_platform} onChange={(e) => set('voice_platform', e.target.value)} {...describedBy('agent-voice_platform', errors.voice_platform)}>
          {PLATFORMS.map((p) => (
            <option key={p} value={p}>
              {platformName(p)}
            </option>
          ))}
        </select>
      </Field>
      {text('phone_number', 'Phone number', 'E.164, e.g. +14155550123; empty: the platform provides one', { inputMode: 'tel', autoComplete: 'off' })}
      <Field id="agent-language" label="Language" error={errors.language}>
        <select id="agent-language" value={form.language} onChange={(e) => set('language', e.target.value)} {...describedBy('agent-language', errors.language)}>
          {agent ? null : <option value="">Platform default</option>}
          {LANGUAGES.map((l) => (
            <option key={l} value={l}>
              {languageName(l)}
            </option>
          ))}
        </select>
      </Field>
      {text('voice_id', 'Voice id')}
      {text('welcome_message', 'Welcome message')}
      <Field id="agent-system_prompt" label="System prompt" error={errors.system_prompt}>
        <textarea id="agent-system_prompt" value={form.system_prompt} onChange={(e) => set('system_prompt', e.target.value)} {...describedBy('agent-system_prompt', errors.system_prompt)} />
      </Field>
      {text('transfer_number', 'Transfer number', 'E.164: where the agent transfers a caller who asks for a person', { inputMode: 'tel' })}
      {check('recording_enabled', 'Record calls')}
      {check('transcription_enabled', 'Transcribe calls')}
      <fieldset>
        <legend>Privacy</legend>
        {check(
          'store_content',
          'Store call content',
          'Unticked, the zero-retention mode: only metadata and analytics are kept (status, timing, caller, sentiment, outcome, costs); no transcript, summary, topics or recording link is stored anywhere.',
        )}
        {check('pii_redaction_enabled', 'Redact personal data', 'Before anything is stored, each match in transcripts, summaries and analysis becomes its category in capitals ([CREDIT_CARD]). Irreversible.')}
        {form.pii_redaction_enabled ? (
          <fieldset aria-describedby={errors.pii_redaction ? 'agent-pii_redaction-error' : undefined}>
            <legend>What to redact</legend>
            {PII_CATEGORIES.map((category) => (
              <div className="field check" key={category}>
                <input
                  id={`pii-${category}`}
                  type="checkbox"
                  checked={form.pii_redaction_categories.includes(category)}
                  onChange={(e) =>
                    set('pii_redaction_categories', e.target.checked ? [...form.pii_redaction_categories, category] : form.pii_redaction_categories.filter((c) => c !== category))
                  }
                />
                <label htmlFor={`pii-${category}`}>{PII_LABELS[category]}</label>
              </div>
            ))}
          </fieldset>
        ) : null}
        {errors.pii_redaction ? (
          <p id="agent-pii_redaction-error" className="field-error" role="alert">
            {errors.pii_redaction}
          </p>
        ) : null}
        <div className="retention">
          {retentionField('conversations_days', 'Keep conversations for (days)', 'After this many days a conversation is erased everywhere. Empty: kept.')}
          {retentionField('recordings_days', 'Keep recording links for (days)', 'After this many days the recording link is removed. Empty: kept.')}
        </div>
        <FieldError id="agent-retention-error" error={errors.retention} />
      </fieldset>
      <BusinessHoursEditor value={form.business_hours} onChange={(v) => set('business_hours', v)} errors={errors} />
      <MetadataEditor rows={form.metadata} onChange={(rows) => set('metadata', rows)} errors={errors} />
      <button type="submit" className="primary" disabled={save.isPending}>
        {agent ? 'Save changes' : 'Create agent'}
      </button>
    </form>
  );
}

function languageName(code: string): string {
  try {
    const name = new Intl.DisplayNames(['en'], { type: 'language' }).of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

function FieldError({ id, error }: { id: string; error?: string }) {
  return error ? (
    <p id={id} className="field-error" role="alert">
      {error}
    </p>
  ) : null;
}

/** One row per weekday: open or closed, and from–to; the time zone they are in. No open day: no business hours. */
function BusinessHoursEditor({ value, onChange, errors }: { value: AgentFormValues['business_hours']; onChange: (v: AgentFormValues['business_hours']) => void; errors: FormErrors }) {
  const zones = useMemo(() => (value.timezone && !TIME_ZONES.includes(value.timezone) ? [value.timezone, ...TIME_ZONES] : TIME_ZONES), [value.timezone]);
  const setDay = (day: Weekday, change: Partial<DayHours>) => onChange({ ...value, days: { ...value.days, [day]: { ...value.days[day], ...change } } });
  const zoneError = errors['business_hours.timezone'];
  return (
    <fieldset className="hours" aria-describedby="hours-hint">
      <legend>Business hours</legend>
      <small id="hours-hint" className="muted">
        Tick the days the agent answers. With no day ticked, it answers at any time.
      </small>
      <FieldError id="agent-business_hours-error" error={errors.business_hours} />
      {WEEKDAYS.map((day) => {
        const hours = value.days[day];
        const error = errors[`business_hours.${day}`];
        const name = humanize(day);
        return (
          <div key={day} className={`day-row${error ? ' invalid' : ''}`} role="group" aria-label={`${name} hours`}>
            <span className="check">
              <input id={`hours-${day}`} type="checkbox" checked={hours.open} onChange={(e) => setDay(day, { open: e.target.checked })} />
              <label htmlFor={`hours-${day}`}>{name}</label>
            </span>
            {hours.open ? (
              <>
                <label className="sr-only" htmlFor={`hours-${day}-from`}>
                  {name} opens
                </label>
                <input id={`hours-${day}-from`} type="time" value={hours.from} onChange={(e) => setDay(day, { from: e.target.value })} {...describedBy(`hours-${day}`, error)} />
                <span aria-hidden="true">–</span>
                <label className="sr-only" htmlFor={`hours-${day}-to`}>
                  {name} closes
                </label>
                <input id={`hours-${day}-to`} type="time" value={hours.to} onChange={(e) => setDay(day, { to: e.target.value })} {...describedBy(`hours-${day}`, error)} />
              </>
            ) : (
              <span className="muted">Closed</span>
            )}
            <FieldError id={`hours-${day}-error`} error={error} />
          </div>
        );
      })}
      <Field id="agent-timezone" label="Time zone" error={zoneError}>
        <select id="agent-timezone" value={value.timezone} onChange={(e) => onChange({ ...value, timezone: e.target.value })} {...describedBy('agent-timezone', zoneError)}>
          <option value="">Choose a time zone</option>
          {zones.map((zone) => (
            <option key={zone} value={zone}>
              {zone.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
      </Field>
    </fieldset>
  );
}

/** Metadata as key/value rows: add, edit, remove. */
function MetadataEditor({ rows, onChange, errors }: { rows: MetadataRow[]; onChange: (rows: MetadataRow[]) => void; errors: FormErrors }) {
  const setRow = (index: number, change: Partial<MetadataRow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  const rowsOut: ReactNode[] = rows.map((row, index) => {
    const error = errors[`metadata.${index}`];
    const n = index + 1;
    return (
      <div key={index} className={`meta-row${error ? ' invalid' : ''}`} role="group" aria-label={`Metadata entry ${n}`}>
        <label className="sr-only" htmlFor={`meta-${index}-key`}>
          Key {n}
        </label>
        <input id={`meta-${index}-key`} placeholder="Key" value={row.key} autoComplete="off" onChange={(e) => setRow(index, { key: e.target.value })} {...describedBy(`meta-${index}`, error)} />
        <label className="sr-only" htmlFor={`meta-${index}-value`}>
          Value {n}
        </label>
        <input id={`meta-${index}-value`} placeholder="Value" value={row.value} autoComplete="off" onChange={(e) => setRow(index, { value: e.target.value })} {...describedBy(`meta-${index}`, error)} />
        <button type="button" onClick={() => onChange(rows.filter((_r, i) => i !== index))} aria-label={`Remove metadata entry ${n}`}>
          Remove
        </button>
        <FieldError id={`meta-${index}-error`} error={error} />
      </div>
    );
  });
  return (
    <fieldset className="metadata">
      <legend>Metadata</legend>
      <small className="muted">Your own labels for the agent (e.g. department: reception), returned with it and in its events.</small>
      {rowsOut}
      <FieldError id="agent-metadata-error" error={errors.metadata} />
      <p>
        <button type="button" onClick={() => onChange([...rows, { key: '', value: '' }])}>
          Add metadata
        </button>
      </p>
    </fieldset>
  );
}
