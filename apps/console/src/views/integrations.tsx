import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiProblem, api, unwrap, type Schemas } from '../api/client';
import { integrationPlatformValues as PLATFORMS, webhookDeliveryOutcomeValues as OUTCOMES } from '../api/schema.generated';
import { CopyButton } from '../components/copy-button';
import { describedBy, Field } from '../components/form-field';
import { ListPanel } from '../components/list-panel';
import { ErrorNotice, Loading } from '../components/notices';
import { formatTime, humanize, platformName } from '../presentation/format';
import { Link } from '../router';

type Platform = (typeof PLATFORMS)[number];

export function IntegrationsView() {
  const query = useQuery({ queryKey: ['integrations'], queryFn: () => unwrap(api.GET('/v1/integrations')) });
  return (
    <>
      <h1>Integrations</h1>
      {query.isPending ? <Loading what="integrations" /> : null}
      {query.isError ? <ErrorNotice error={query.error} title="The integrations could not be loaded" /> : null}
      {query.data ? (
        <div className="cards">
          {PLATFORMS.map((platform) => (
            <PlatformCard key={platform} platform={platform} integration={query.data.data.find((i) => i.platform === platform)} />
          ))}
        </div>
      ) : null}
      <DeliveryLog />
    </>
  );
}

function PlatformCard({ platform, integration }: { platform: Platform; integration?: Schemas['Integration'] }) {
  const queryClient = useQueryClient();
  const [apiKey, setApiKey] = useState('');
  const [secret, setSecret] = useState('');
  const [baseUrl, setBaseUrl] = useState(integration?.base_url ?? '');
  const save = useMutation({
    mutationFn: () =>
      unwrap(api.PUT('/v1/integrations/{platform}', { params: { path: { platform } }, body: { api_key: apiKey, webhook_secret: secret, ...(baseUrl.trim() ? { base_url: baseUrl.trim() } : {}) } })),
    onSuccess: async () => {
      setApiKey('');
      setSecret('');
      await queryClient.invalidateQueries({ queryKey: ['integrations'] });
    },
  });
  const problem = save.error instanceof ApiProblem ? save.error : undefined;
  const errorAt = (field: string) => (problem?.field === field ? problem.message : undefined);
  const id = (field: string) => `${platform}-${field}`;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const title = platformName(platform);
  return (
    <section className="card" aria-label={title}>
      <h2>{title}</h2>
      {integration ? (
        <dl className="facts">
          <div>
            <dt>Status</dt>
            <dd>
              <span className={`badge status-${integration.status}`}>{humanize(integration.status)}</span>
            </dd>
          </div>
          <div>
            <dt>Webhook URL</dt>
            <dd>
              <code>{integration.webhook_url}</code> <CopyButton text={integration.webhook_url} label={`Copy the ${title} webhook URL`} />
            </dd>
          </div>
          <div>
            <dt>Credentials</dt>
            <dd>
              key …{integration.api_key_hint}, secret …{integration.webhook_secret_hint}
            </dd>
          </div>
          <div>
            <dt>Rejected (24 h)</dt>
            <dd>
              {integration.rejected_deliveries_24h}
              {integration.last_rejection ? ` (last: ${JSON.stringify(integration.last_rejection)})` : ''}
            </dd>
          </div>
        </dl>
      ) : (
        <p className="muted">Not configured: agents cannot be created on {title} yet.</p>
      )}
      <form onSubmit={submit} className="narrow-form" aria-label={`${title} credentials`}>
        <Field id={id('api_key')} label={`${title} API key`} error={errorAt('api_key')}>
          <input id={id('api_key')} type="password" autoComplete="off" required value={apiKey} onChange={(e) => setApiKey(e.target.value)} {...describedBy(id('api_key'), errorAt('api_key'))} />
        </Field>
        <Field id={id('webhook_secret')} label={`${title} webhook secret`} error={errorAt('webhook_secret')}>
          <input id={id('webhook_secret')} type="password" autoComplete="off" required value={secret} onChange={(e) => setSecret(e.target.value)} {...describedBy(id('webhook_secret'), errorAt('webhook_secret'))} />
        </Field>
        <Field id={id('base_url')} label={`${title} base URL`} error={errorAt('base_url')} hint="Optional: the platform's API address">
          <input id={id('base_url')} type="url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} {...describedBy(id('base_url'), errorAt('base_url'), "Optional: the platform's API address")} />
        </Field>
        {problem && !problem.field ? <ErrorNotice error={problem} title="The credentials could not be saved" /> : null}
        {problem?.field && !['api_key', 'webhook_secret', 'base_url'].includes(problem.field) ? <ErrorNotice error={problem} title="The credentials could not be saved" /> : null}
        {save.isSuccess ? (
          <p className="notice ok" role="status">
            Saved.
          </p>
        ) : null}
        <button type="submit" className="primary" disabled={save.isPending}>
          {integration ? 'Replace credentials' : 'Save credentials'}
        </button>
      </form>
    </section>
  );
}

const DELIVERY_COLUMNS = ['Received', 'Platform', 'Event', 'Outcome', 'Replay', 'Conversation'];

function DeliveryLog() {
  const [page, setPage] = useState(1);
  const [platform, setPlatform] = useState('');
  const [outcome, setOutcome] = useState('');
  const query = useQuery({
    queryKey: ['webhook-deliveries', page, platform, outcome],
    queryFn: () =>
      unwrap(api.GET('/v1/webhook-deliveries', { params: { query: { page, per_page: 25, ...(platform ? { platform: platform as Platform } : {}), ...(outcome ? { outcome: outcome as (typeof OUTCOMES)[number] } : {}) } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Webhook deliveries</h2>
      <form className="filters" aria-label="Filter deliveries" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor="d-platform">Platform</label>
          <select id="d-platform" value={platform} onChange={(e) => { setPlatform(e.target.value); setPage(1); }}>
            <option value="">Any</option>
            {PLATFORMS.map((p) => (
              <option key={p} value={p}>{platformName(p)}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="d-outcome">Outcome</label>
          <select id="d-outcome" value={outcome} onChange={(e) => { setOutcome(e.target.value); setPage(1); }}>
            <option value="">Any</option>
            {OUTCOMES.map((o) => (
              <option key={o} value={o}>{humanize(o)}</option>
            ))}
          </select>
        </div>
      </form>
      <ListPanel
        query={query}
        loadingWhat="deliveries"
        errorTitle="The delivery log could not be loaded"
        noun="deliveries"
        page={page}
        onPage={setPage}
        label="Webhook deliveries"
        columns={DELIVERY_COLUMNS}
        itemKey={(delivery) => delivery.id}
        row={(delivery) => <DeliveryRow delivery={delivery} />}
        empty="No deliveries received yet."
      />
    </section>
  );
}

function DeliveryRow({ delivery: d }: { delivery: Schemas['WebhookDelivery'] }) {
  const queryClient = useQueryClient();
  const replay = useMutation({
    mutationFn: () => unwrap(api.POST('/v1/webhook-deliveries/{id}/replay', { params: { path: { id: d.id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhook-deliveries'] }),
  });
  return (
    <tr>
      <td>{formatTime(d.received_at)}</td>
      <td>{platformName(d.platform)}</td>
      <td>{d.event_type ?? '—'}</td>
      <td className="wrap">
        <span className={`badge outcome-${d.outcome}`}>{humanize(d.outcome)}</span>
        {d.reason ? <small className="muted"> {d.reason}</small> : null}
      </td>
      <td>
        <button type="button" onClick={() => replay.mutate()} disabled={replay.isPending || d.replay_of !== null} aria-label={`Replay delivery ${d.id}`}>
          Replay
        </button>
        {replay.isSuccess ? <span role="status"> Replayed: {humanize(replay.data.data.outcome)}</span> : null}
        {replay.isError ? <ErrorNotice error={replay.error} title="Replay failed" /> : null}
      </td>
      <td>{d.conversation_id ? <Link to={`/conversations/${encodeURIComponent(d.conversation_id)}`}>{d.conversation_id}</Link> : '—'}</td>
    </tr>
  );
}
