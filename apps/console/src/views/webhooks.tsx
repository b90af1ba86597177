import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { CopyButton } from '../components/copy-button';
import { ListPanel } from '../components/list-panel';
import { humanize } from '../presentation/format';
import { filterSummary } from '../presentation/webhooks';
import { Link } from '../router';
import { EndpointForm, useAgentNames } from './webhook-endpoint-form';

const ENDPOINT_COLUMNS = ['URL', 'Status', 'Event types', 'Agents', 'Deliveries (24 h)'];

/** Webhook endpoints: the account's systems told of its events. The list, and a new endpoint with its secret shown once. */
export function WebhooksView() {
  const [created, setCreated] = useState<Schemas['CreatedWebhookEndpoint']>();
  return (
    <>
      <h1>Webhooks</h1>
      <p className="muted">
        Your systems are sent the account's events as signed POSTs (Standard Webhooks), retried for about a day until
        they answer 2xx. Open an endpoint for its deliveries, secret and test.
      </p>
      {created ? <CreatedSecret created={created} onDone={() => setCreated(undefined)} /> : null}
      <EndpointList />
      <section aria-labelledby="create-endpoint-title">
        <h2 id="create-endpoint-title">New endpoint</h2>
        <EndpointForm onCreated={setCreated} />
      </section>
    </>
  );
}

function CreatedSecret({ created, onDone }: { created: Schemas['CreatedWebhookEndpoint']; onDone: () => void }) {
  return (
    <section className="notice ok" aria-labelledby="new-endpoint-title">
      <h2 id="new-endpoint-title">Endpoint created: copy its signing secret</h2>
      <p>
        Your receiver verifies each delivery with it. It is shown here once; the endpoint's page can reveal it again.{' '}
        <Link to={`/webhooks/${encodeURIComponent(created.id)}`}>Open {created.url}</Link>
      </p>
      <p className="secret" data-testid="new-endpoint-secret">
        {created.secret}
      </p>
      <div className="row">
        <CopyButton text={created.secret} label="Copy secret" />
        <button type="button" onClick={onDone}>
          I have saved it
        </button>
      </div>
    </section>
  );
}

function EndpointList() {
  const [page, setPage] = useState(1);
  const agents = useAgentNames();
  const query = useQuery({
    queryKey: ['webhook-endpoints', 'list', page],
    queryFn: () => unwrap(api.GET('/v1/webhook-endpoints', { params: { query: { page, per_page: 25 } } })),
    placeholderData: keepPreviousData,
    // The 24-hour counts move as deliveries happen.
    refetchInterval: 10_000,
  });
  const agentName = (id: string) => agents.data?.find((agent) => agent.id === id)?.name ?? id;
  return (
    <section aria-labelledby="endpoints-title">
      <h2 id="endpoints-title">Endpoints</h2>
      <ListPanel
        query={query}
        loadingWhat="webhook endpoints"
        errorTitle="The endpoints could not be loaded"
        noun="endpoints"
        page={page}
        onPage={setPage}
        label="Webhook endpoints"
        columns={ENDPOINT_COLUMNS}
        itemKey={(endpoint) => endpoint.id}
        row={(endpoint) => <EndpointRow endpoint={endpoint} agentName={agentName} />}
        empty="No endpoints yet: add one below."
      />
    </section>
  );
}

function EndpointRow({ endpoint, agentName }: { endpoint: Schemas['WebhookEndpoint']; agentName: (id: string) => string }) {
  return (
    <tr>
      <th scope="row" className="wrap-narrow">
        <Link to={`/webhooks/${encodeURIComponent(endpoint.id)}`}>{endpoint.url}</Link>
        {endpoint.description ? <small className="muted block">{endpoint.description}</small> : null}
      </th>
      <td className="wrap-narrow">
        <EndpointStatus endpoint={endpoint} />
      </td>
      <td className="wrap-narrow">{filterSummary(endpoint.event_types, 'All')}</td>
      <td className="wrap-narrow">{filterSummary(endpoint.agent_ids, 'All', agentName)}</td>
      <td>
        <DeliveryCounts counts={endpoint.deliveries_last_24h} />
      </td>
    </tr>
  );
}

export function EndpointStatus({ endpoint }: { endpoint: Schemas['WebhookEndpoint'] }) {
  return (
    <>
      <span className={`badge status-${endpoint.status}`}>{humanize(endpoint.status)}</span>
      {endpoint.disabled_reason ? <small className="muted"> {endpoint.disabled_reason}</small> : null}
    </>
  );
}

export function DeliveryCounts({ counts }: { counts: Schemas['WebhookEndpoint']['deliveries_last_24h'] }) {
  return (
    <>
      <span className="status-succeeded">{counts.succeeded} succeeded</span>, <span className={counts.failed ? 'status-failed' : undefined}>{counts.failed} failed</span>
    </>
  );
}
