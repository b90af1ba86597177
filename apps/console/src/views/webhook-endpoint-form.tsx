import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiProblem, api, unwrap, type Schemas } from '../api/client';
import { webhookEndpointEvent_typesOneOf0Values as EVENT_TYPES } from '../api/schema.generated';
import { describedBy, Field } from '../components/form-field';
import { ErrorNotice } from '../components/notices';
import { formFieldOf } from '../rules/problems';
import {
  createEndpointBody,
  emptyEndpointForm,
  endpointChanges,
  endpointFormOf,
  ENDPOINT_FORM_FIELDS,
  type EndpointFormErrors,
  type EndpointFormValues,
} from '../rules/webhook-endpoint-form';

type EventType = (typeof EVENT_TYPES)[number];

/** The account's agents, for the agent filter and for naming agents in the list (one page holds the plan's limit). */
export function useAgentNames() {
  return useQuery({
    queryKey: ['agents', 'names'],
    queryFn: () => unwrap(api.GET('/v1/agents', { params: { query: { page: 1, per_page: 100 } } })),
    select: (page) => page.data.map((agent) => ({ id: agent.id, name: agent.name })),
  });
}

/**
 * Create (no `endpoint`) or edit an endpoint. Errors, the console's own and the API's, appear at the control
 * they name; an edit sends only what changed.
 */
export function EndpointForm({ endpoint, onCreated }: { endpoint?: Schemas['WebhookEndpoint']; onCreated?: (created: Schemas['CreatedWebhookEndpoint']) => void }) {
  const queryClient = useQueryClient();
  const agents = useAgentNames();
  const [form, setForm] = useState<EndpointFormValues>(() => (endpoint ? endpointFormOf(endpoint) : emptyEndpointForm()));
  const [errors, setErrors] = useState<EndpointFormErrors>({});
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: async (values: EndpointFormValues) => {
      if (endpoint) {
        const { body, errors: local } = endpointChanges(endpoint, values);
        if (!body) throw local;
        if (Object.keys(body).length === 0) return { data: endpoint };
        return unwrap(api.PATCH('/v1/webhook-endpoints/{id}', { params: { path: { id: endpoint.id } }, body }));
      }
      const { body, errors: local } = createEndpointBody(values);
      if (!body) throw local;
      return unwrap(api.POST('/v1/webhook-endpoints', { body }));
    },
    onSuccess: async (result) => {
      await queryClient.invalidateQueries({ queryKey: ['webhook-endpoints'] });
      if (endpoint) {
        queryClient.setQueryData(['webhook-endpoint', endpoint.id], result);
        setSaved(true);
      } else {
        setForm(emptyEndpointForm());
        onCreated?.(result.data as Schemas['CreatedWebhookEndpoint']);
      }
    },
    onError: (error) => {
      if (error instanceof ApiProblem) {
        const field = formFieldOf(error, ENDPOINT_FORM_FIELDS);
        setErrors(field ? { [field]: error.message } : {});
      } else {
        setErrors(error as EndpointFormErrors);
      }
    },
  });
  const formProblem = save.error instanceof ApiProblem && !formFieldOf(save.error, ENDPOINT_FORM_FIELDS) ? save.error : undefined;
  const set = <K extends keyof EndpointFormValues>(key: K, value: EndpointFormValues[K]) => {
    setSaved(false);
    setForm((f) => ({ ...f, [key]: value }));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setErrors({});
    // An edit leaves enabled to the page's Enable/Disable button: the value shown when the form opened may be stale.
    save.mutate(endpoint ? { ...form, enabled: endpoint.enabled } : form);
  };
  const prefix = endpoint ? 'edit-endpoint' : 'new-endpoint';
  const id = (field: string) => `${prefix}-${field}`;
  const urlHint = 'Where each event is POSTed, signed (Standard Webhooks)';
  return (
    <form className="narrow-form" onSubmit={submit} noValidate aria-label={endpoint ? 'Edit the endpoint' : 'New endpoint'}>
      {formProblem ? <ErrorNotice error={formProblem} title={endpoint ? 'The endpoint could not be saved' : 'The endpoint could not be created'} /> : null}
      {saved ? (
        <p className="notice ok" role="status">
          Saved.
        </p>
      ) : null}
      <Field id={id('url')} label="URL" error={errors.url} hint={urlHint}>
        <input id={id('url')} type="url" inputMode="url" autoComplete="off" spellCheck={false} value={form.url} onChange={(e) => set('url', e.target.value)} {...describedBy(id('url'), errors.url, urlHint)} />
      </Field>
      <Field id={id('description')} label="Description" error={errors.description} hint="Optional: what receives it">
        <input id={id('description')} autoComplete="off" value={form.description} onChange={(e) => set('description', e.target.value)} {...describedBy(id('description'), errors.description, 'Optional: what receives it')} />
      </Field>
      <Choice
        id={id('event_types')}
        legend="Event types"
        allLabel="All event types, including ones added later"
        all={form.allEventTypes}
        onAll={(all) => set('allEventTypes', all)}
        options={EVENT_TYPES.map((type) => ({ value: type, label: type }))}
        chosen={form.eventTypes}
        onChosen={(chosen) => set('eventTypes', chosen as EventType[])}
        error={errors.event_types}
      />
      <Choice
        id={id('agent_ids')}
        legend="Agents"
        allLabel="Every agent's events, including agents created later"
        all={form.allAgents}
        onAll={(all) => set('allAgents', all)}
        options={(agents.data ?? []).map((agent) => ({ value: agent.id, label: agent.name }))}
        chosen={form.agentIds}
        onChosen={(chosen) => set('agentIds', chosen)}
        error={errors.agent_ids}
      />
      {endpoint ? null : (
        <div className="field check">
          <input id={id('enabled')} type="checkbox" checked={form.enabled} onChange={(e) => set('enabled', e.target.checked)} />
          <label htmlFor={id('enabled')}>Enabled (events are delivered)</label>
          {errors.enabled ? (
            <p className="field-error" role="alert">
              {errors.enabled}
            </p>
          ) : null}
        </div>
      )}
      <button type="submit" className="primary" disabled={save.isPending}>
        {endpoint ? 'Save changes' : 'Create endpoint'}
      </button>
    </form>
  );
}

/** "All" or "only these" (checkboxes shown when chosen), in one fieldset with its error. */
function Choice(props: {
  id: string;
  legend: string;
  allLabel: string;
  all: boolean;
  onAll: (all: boolean) => void;
  options: Array<{ value: string; label: string }>;
  chosen: string[];
  onChosen: (chosen: string[]) => void;
  error?: string;
}) {
  const { id, legend, allLabel, all, onAll, options, chosen, onChosen, error } = props;
  return (
    <fieldset className={error ? 'invalid' : undefined} aria-describedby={error ? `${id}-error` : undefined}>
      <legend>{legend}</legend>
      <div className="field check">
        <input id={`${id}-all`} type="radio" name={id} checked={all} onChange={() => onAll(true)} />
        <label htmlFor={`${id}-all`}>{allLabel}</label>
      </div>
      <div className="field check">
        <input id={`${id}-some`} type="radio" name={id} checked={!all} onChange={() => onAll(false)} />
        <label htmlFor={`${id}-some`}>Only these:</label>
      </div>
      {all ? null : (
        <div className="choices">
          {options.map((option) => (
            <div className="field check" key={option.value}>
              <input
                id={`${id}-${option.value}`}
                type="checkbox"
                checked={chosen.includes(option.value)}
                onChange={(e) => onChosen(e.target.checked ? [...chosen, option.value] : chosen.filter((v) => v !== option.value))}
              />
              <label htmlFor={`${id}-${option.value}`}>{option.label}</label>
            </div>
          ))}
        </div>
      )}
      {error ? (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
