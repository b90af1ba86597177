import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiProblem, api, unwrap, type Schemas } from '../api/client';
import { agentLanguageValues as LANGUAGES, agentVoice_platformValues as PLATFORMS } from '../api/schema.generated';
import { describedBy, Field } from '../components/form-field';
import { ErrorNotice, Loading } from '../components/notices';
import { formatTime, humanize } from '../presentation/format';
import { agentChanges, agentFormOf, AGENT_FORM_FIELDS, createAgentBody, emptyAgentForm, type AgentFormValues, type FormErrors } from '../rules/agent-form';
import { formFieldOf } from '../rules/problems';
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

function AgentForm({ agent }: { agent?: Schemas['Agent'] }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<AgentFormValues>(() => (agent ? agentFormOf(agent) : emptyAgentForm()));
  const [errors, setErrors] = useState<FormErrors>({});
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: async (values: AgentFormValues) => {
      if (agent) {
        const { body, errors: local } = agentChanges(agent, values);
        if (!body) throw local;
        return unwrap(api.PATCH('/v1/agents/{id}', { params: { path: { id: agent.id } }, body }));
      }
      const { body, errors: local } = createAgentBody(values);
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
    onError: (error) => {
      if (error instanceof ApiProblem) {
        const field = formFieldOf(error, AGENT_FORM_FIELDS);
        setErrors(field ? { [field]: error.message } : {});
      } else {
        setErrors(error as FormErrors);
      }
    },
  });
  const formProblem = save.error instanceof ApiProblem && !formFieldOf(save.error, AGENT_FORM_FIELDS) ? save.error : undefined;
  const set = <K extends keyof AgentFormValues>(key: K, value: AgentFormValues[K]) => {
    setSaved(false);
    setForm((f) => ({ ...f, [key]: value }));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setErrors({});
    save.mutate(form);
  };
  const text = (key: 'name' | 'phone_number' | 'voice_id' | 'transfer_number' | 'welcome_message', label: string, hint?: string, props: Record<string, unknown> = {}) => (
    <Field id={`agent-${key}`} label={label} error={errors[key]} hint={hint}>
      <input id={`agent-${key}`} name={key} value={form[key]} onChange={(e) => set(key, e.target.value)} {...describedBy(`agent-${key}`, errors[key], hint)} {...props} />
    </Field>
  );
  const area = (key: 'system_prompt' | 'business_hours' | 'metadata', label: string, hint?: string) => (
    <Field id={`agent-${key}`} label={label} error={errors[key]} hint={hint}>
      <textarea id={`agent-${key}`} name={key} value={form[key]} onChange={(e) => set(key, e.target.value)} {...describedBy(`agent-${key}`, errors[key], hint)} />
    </Field>
  );
  const check = (key: 'recording_enabled' | 'transcription_enabled', label: string) => (
    <div className="field check">
      <input id={`agent-${key}`} type="checkbox" checked={form[key]} onChange={(e) => set(key, e.target.checked)} />
      <label htmlFor={`agent-${key}`}>{label}</label>
      {errors[key] ? <p className="field-error" role="alert">{errors[key]}</p> : null}
    </div>
  );
  return (
    <form className="agent-form" onSubmit={submit} noValidate>
      {formProblem ? <ErrorNotice error={formProblem} title="The agent could not be saved" /> : null}
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
              {humanize(p)}
            </option>
          ))}
        </select>
      </Field>
      {text('phone_number', 'Phone number', 'E.164, e.g. +14155550123', { inputMode: 'tel', autoComplete: 'off' })}
      <Field id="agent-language" label="Language" error={errors.language}>
        <select id="agent-language" value={form.language} onChange={(e) => set('language', e.target.value)} {...describedBy('agent-language', errors.language)}>
          {agent ? null : <option value="">Platform default</option>}
          {LANGUAGES.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
      </Field>
      {text('voice_id', 'Voice id')}
      {text('welcome_message', 'Welcome message')}
      {area('system_prompt', 'System prompt')}
      {text('transfer_number', 'Transfer number', 'E.164: where the agent transfers a caller who asks for a person', { inputMode: 'tel' })}
      {check('recording_enabled', 'Record calls')}
      {check('transcription_enabled', 'Transcribe calls')}
      {area('business_hours', 'Business hours (JSON)', '{"timezone": "America/Los_Angeles", "schedule": [{"day": "monday", "open": "08:00", "close": "18:00"}]}')}
      {area('metadata', 'Metadata (JSON)', 'Any JSON object, e.g. {"department": "reception"}')}
      <button type="submit" className="primary" disabled={save.isPending}>
        {agent ? 'Save changes' : 'Create agent'}
      </button>
    </form>
  );
}
