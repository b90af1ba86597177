import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { CopyButton } from '../components/copy-button';
import { ErrorNotice, Loading } from '../components/notices';
import { formatTime } from '../presentation/format';
import { attemptOutcome, filterSummary } from '../presentation/webhooks';
import { Link, navigate } from '../router';
import { EndpointDeliveries } from './webhook-deliveries';
import { EndpointForm, useAgentNames } from './webhook-endpoint-form';
import { DeliveryCounts, EndpointStatus } from './webhooks';

type Endpoint = Schemas['WebhookEndpoint'];

/** One endpoint: what it receives, its secret, a test, its settings and its deliveries. */
export function WebhookEndpointView({ id }: { id: string }) {
  const query = useQuery({
    queryKey: ['webhook-endpoint', id],
    queryFn: () => unwrap(api.GET('/v1/webhook-endpoints/{id}', { params: { path: { id } } })),
    refetchInterval: 10_000,
  });
  const agents = useAgentNames();
  const agentName = (agentId: string) => agents.data?.find((agent) => agent.id === agentId)?.name ?? agentId;
  if (query.isPending) return <Loading what="the endpoint" />;
  if (query.isError) {
    return (
      <>
        <BackLink />
        <ErrorNotice error={query.error} title="The endpoint could not be loaded" />
      </>
    );
  }
  const endpoint = query.data.data;
  return (
    <>
      <BackLink />
      <h1>{endpoint.url}</h1>
      <dl className="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <EndpointStatus endpoint={endpoint} />
          </dd>
        </div>
        <div>
          <dt>Description</dt>
          <dd>{endpoint.description ?? '—'}</dd>
        </div>
        <div>
          <dt>Event types</dt>
          <dd>{filterSummary(endpoint.event_types, 'All, including ones added later')}</dd>
        </div>
        <div>
          <dt>Agents</dt>
          <dd>{filterSummary(endpoint.agent_ids, 'All', agentName)}</dd>
        </div>
        <div>
          <dt>Deliveries (24 h)</dt>
          <dd>
            <DeliveryCounts counts={endpoint.deliveries_last_24h} />
          </dd>
        </div>
        <div>
          <dt>Signing secret</dt>
          <dd>
            <code>whsec_…{endpoint.secret_hint}</code>
          </dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>{formatTime(endpoint.updated_at)}</dd>
        </div>
      </dl>
      <EndpointActions endpoint={endpoint} />
      <SecretPanel endpoint={endpoint} />
      <TestEvent endpoint={endpoint} />
      <EndpointDeliveries endpointId={endpoint.id} />
      <section aria-labelledby="edit-endpoint-title">
        <h2 id="edit-endpoint-title">Settings</h2>
        <EndpointForm key={endpoint.id} endpoint={endpoint} />
      </section>
    </>
  );
}

const BackLink = () => (
  <p>
    <Link to="/webhooks">← Webhooks</Link>
  </p>
);

function useEndpointRefresh(endpoint: Endpoint) {
  const queryClient = useQueryClient();
  return async (result?: { data: Endpoint }) => {
    if (result) queryClient.setQueryData(['webhook-endpoint', endpoint.id], result);
    await queryClient.invalidateQueries({ queryKey: ['webhook-endpoints'] });
  };
}

/** Enable or disable; delete after a confirmation. */
function EndpointActions({ endpoint }: { endpoint: Endpoint }) {
  const refresh = useEndpointRefresh(endpoint);
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const toggle = useMutation({
    mutationFn: () => unwrap(api.PATCH('/v1/webhook-endpoints/{id}', { params: { path: { id: endpoint.id } }, body: { enabled: !endpoint.enabled } })),
    onSuccess: (result) => refresh(result),
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/v1/webhook-endpoints/{id}', { params: { path: { id: endpoint.id } } })),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: ['webhook-endpoint', endpoint.id] });
      await queryClient.invalidateQueries({ queryKey: ['webhook-endpoints'] });
      navigate('/webhooks');
    },
  });
  const action = endpoint.enabled ? 'Disable' : 'Enable';
  return (
    <div className="row actions-row">
      <button type="button" onClick={() => toggle.mutate()} disabled={toggle.isPending}>
        {action} endpoint
      </button>
      {confirming ? (
        <span role="group" aria-label="Confirm deleting the endpoint" className="row">
          <span>Delete this endpoint and its pending deliveries?</span>
          <button type="button" className="danger" onClick={() => remove.mutate()} disabled={remove.isPending} autoFocus>
            Confirm delete
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </span>
      ) : (
        <button type="button" className="danger" onClick={() => setConfirming(true)}>
          Delete endpoint
        </button>
      )}
      {toggle.isError ? <ErrorNotice error={toggle.error} title={`${action} failed`} /> : null}
      {remove.isError ? <ErrorNotice error={remove.error} title="Delete failed" /> : null}
    </div>
  );
}

/** Reveal the signing secret, or rotate it (after a confirmation): the new one is shown, the old one signs for 24 h more. */
function SecretPanel({ endpoint }: { endpoint: Endpoint }) {
  const refresh = useEndpointRefresh(endpoint);
  const [shown, setShown] = useState<{ secret: string; rotated: boolean }>();
  const [confirming, setConfirming] = useState(false);
  const reveal = useMutation({
    mutationFn: () => unwrap(api.GET('/v1/webhook-endpoints/{id}/secret', { params: { path: { id: endpoint.id } } })),
    onSuccess: (result) => setShown({ secret: result.data.secret, rotated: false }),
  });
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/v1/webhook-endpoints/{id}/rotate-secret', { params: { path: { id: endpoint.id } } })),
    onSuccess: async (result) => {
      setConfirming(false);
      setShown({ secret: result.data.secret, rotated: true });
      await refresh();
    },
  });
  return (
    <section aria-labelledby="secret-title">
      <h2 id="secret-title">Signing secret</h2>
      <div className="row">
        {shown ? (
          <button type="button" onClick={() => setShown(undefined)}>
            Hide secret
          </button>
        ) : (
          <button type="button" onClick={() => reveal.mutate()} disabled={reveal.isPending}>
            Reveal secret
          </button>
        )}
        {confirming ? (
          <span role="group" aria-label="Confirm rotating the secret" className="row">
            <span>Make a new secret?</span>
            <button type="button" className="danger" onClick={() => rotate.mutate()} disabled={rotate.isPending} autoFocus>
              Confirm rotate
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button type="button" onClick={() => setConfirming(true)}>
            Rotate secret
          </button>
        )}
      </div>
      {shown ? (
        <div className={`notice${shown.rotated ? ' ok' : ''}`} role="status">
          {shown.rotated ? <p>New secret. The previous one also signs every message for 24 h more, so receivers can switch over without missing one.</p> : null}
          <p className="secret" data-testid="endpoint-secret">
            {shown.secret}
          </p>
          <CopyButton text={shown.secret} label="Copy secret" />
        </div>
      ) : null}
      {reveal.isError ? <ErrorNotice error={reveal.error} title="The secret could not be read" /> : null}
      {rotate.isError ? <ErrorNotice error={rotate.error} title="The secret could not be rotated" /> : null}
    </section>
  );
}

/** Send a webhook.test event now and say what the endpoint answered. */
function TestEvent({ endpoint }: { endpoint: Endpoint }) {
  const queryClient = useQueryClient();
  const send = useMutation({
    mutationFn: () => unwrap(api.POST('/v1/webhook-endpoints/{id}/test', { params: { path: { id: endpoint.id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['webhook-deliveries', endpoint.id] }),
  });
  const result = send.data?.data;
  return (
    <section aria-labelledby="test-title">
      <h2 id="test-title">Test</h2>
      <div className="row">
        <button type="button" onClick={() => send.mutate()} disabled={send.isPending}>
          {send.isPending ? 'Sending…' : 'Send test event'}
        </button>
      </div>
      <div role="status">
        {result ? (
          <div className={`notice ${result.succeeded ? 'ok' : 'error'}`}>
            <strong>{result.succeeded ? 'Test event delivered' : 'Test event failed'}</strong>: {attemptOutcome(result)}.
            {result.response_body ? (
              <p>
                Answer: <code className="excerpt">{result.response_body}</code>
              </p>
            ) : null}
          </div>
        ) : null}
      </div>
      {send.isError ? <ErrorNotice error={send.error} title="The test event could not be sent" /> : null}
    </section>
  );
}
