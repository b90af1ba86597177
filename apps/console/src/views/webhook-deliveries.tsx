import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiProblem, api, unwrap, type Schemas } from '../api/client';
import { outboundDeliveryStatusValues as STATUSES } from '../api/schema.generated';
import { describedBy, Field } from '../components/form-field';
import { ListPanel } from '../components/list-panel';
import { ErrorNotice, Loading } from '../components/notices';
import { TableScroller } from '../components/table-scroller';
import { formatTime, humanize } from '../presentation/format';
import { defaultRecoverSince, recoverSinceOf } from '../rules/webhook-endpoint-form';
import { Link } from '../router';

type Status = (typeof STATUSES)[number];
type Delivery = Schemas['OutboundDelivery'];

const DELIVERY_COLUMNS = ['Created', 'Event', 'Status', 'Attempts', 'Next attempt', 'Actions'];
const deliveryPath = (endpointId: string, deliveryId: string) => `/webhooks/${encodeURIComponent(endpointId)}/deliveries/${encodeURIComponent(deliveryId)}`;

/** An endpoint's deliveries, newest first, filtered by status; resend one; recover every failed one since a time. */
export function EndpointDeliveries({ endpointId }: { endpointId: string }) {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<Status | ''>('');
  const query = useQuery({
    queryKey: ['webhook-deliveries', endpointId, page, status],
    queryFn: () =>
      unwrap(api.GET('/v1/webhook-endpoints/{id}/deliveries', { params: { path: { id: endpointId }, query: { page, per_page: 25, ...(status ? { status } : {}) } } })),
    placeholderData: keepPreviousData,
    // New events keep arriving, and a pending delivery settles within seconds.
    refetchInterval: 5000,
  });
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries</h2>
      <form className="filters" aria-label="Filter deliveries" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor="delivery-status">Status</label>
          <select
            id="delivery-status"
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as Status | '');
              setPage(1);
            }}
          >
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {humanize(s)}
              </option>
            ))}
          </select>
        </div>
      </form>
      <ListPanel
        query={query}
        loadingWhat="deliveries"
        errorTitle="The deliveries could not be loaded"
        noun="deliveries"
        page={page}
        onPage={setPage}
        label="Deliveries of this endpoint"
        columns={DELIVERY_COLUMNS}
        itemKey={(delivery) => delivery.id}
        row={(delivery) => <DeliveryRow delivery={delivery} />}
        empty={status ? `No ${status} deliveries.` : 'No deliveries yet: send a test event.'}
      />
      <RecoverForm endpointId={endpointId} />
    </section>
  );
}

function DeliveryRow({ delivery: d }: { delivery: Delivery }) {
  return (
    <tr>
      <td>{formatTime(d.created_at)}</td>
      <td>
        <code>{d.event_type}</code>
      </td>
      <td>
        <span className={`badge status-${d.status}`}>{humanize(d.status)}</span>
      </td>
      <td>{d.attempt_count}</td>
      <td>{formatTime(d.next_attempt_at)}</td>
      <td>
        <div className="row">
          <Link to={deliveryPath(d.endpoint_id, d.id)} aria-label={`Attempts of the ${d.event_type} delivery created ${formatTime(d.created_at)}`}>
            Attempts
          </Link>
          <ResendButton delivery={d} />
        </div>
      </td>
    </tr>
  );
}

function ResendButton({ delivery: d }: { delivery: Delivery }) {
  const queryClient = useQueryClient();
  const resend = useMutation({
    mutationFn: () => unwrap(api.POST('/v1/webhook-endpoints/{id}/deliveries/{delivery_id}/resend', { params: { path: { id: d.endpoint_id, delivery_id: d.id } } })),
    onSuccess: () => Promise.all([queryClient.invalidateQueries({ queryKey: ['webhook-deliveries', d.endpoint_id] }), queryClient.invalidateQueries({ queryKey: ['webhook-delivery', d.id] })]),
  });
  return (
    <>
      <button type="button" onClick={() => resend.mutate()} disabled={resend.isPending} aria-label={`Resend the ${d.event_type} delivery created ${formatTime(d.created_at)}`}>
        Resend
      </button>
      {resend.isSuccess ? <span role="status">Resent.</span> : null}
      {resend.isError ? <ErrorNotice error={resend.error} title="Resend failed" /> : null}
    </>
  );
}

/** POST …/recover: every failed delivery created since a time (UTC) is attempted again now. */
function RecoverForm({ endpointId }: { endpointId: string }) {
  const queryClient = useQueryClient();
  const [since, setSince] = useState(defaultRecoverSince);
  const [localError, setLocalError] = useState<string>();
  const recover = useMutation({
    mutationFn: (iso: string) => unwrap(api.POST('/v1/webhook-endpoints/{id}/recover', { params: { path: { id: endpointId } }, body: { since: iso } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhook-deliveries', endpointId] }),
  });
  const problem = recover.error instanceof ApiProblem ? recover.error : undefined;
  const error = localError ?? (problem?.field === 'since' ? problem.message : undefined);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const iso = recoverSinceOf(since);
    setLocalError(iso ? undefined : 'Enter a date and time.');
    if (iso) recover.mutate(iso);
  };
  const hint = 'UTC. Every delivery that failed and was created since then is attempted again now.';
  return (
    <form className="narrow-form" onSubmit={submit} noValidate aria-labelledby="recover-title">
      <h3 id="recover-title">Recover failed deliveries</h3>
      <Field id="recover-since" label="Failed since (UTC)" error={error} hint={hint}>
        <input id="recover-since" type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} {...describedBy('recover-since', error, hint)} />
      </Field>
      {problem && problem.field !== 'since' ? <ErrorNotice error={problem} title="Recover failed" /> : null}
      {recover.isSuccess ? (
        <p className="notice ok" role="status">
          {recover.data.data.deliveries === 1 ? '1 failed delivery is' : `${recover.data.data.deliveries} failed deliveries are`} being attempted again.
        </p>
      ) : null}
      <button type="submit" disabled={recover.isPending}>
        Recover
      </button>
    </form>
  );
}

const ATTEMPT_COLUMNS = ['Time', 'Result', 'Duration', 'Response (first 1 KiB)'];

/** One delivery: its event, state and every attempt, oldest first; read again while it is pending. */
export function WebhookDeliveryView({ endpointId, deliveryId }: { endpointId: string; deliveryId: string }) {
  const query = useQuery({
    queryKey: ['webhook-delivery', deliveryId],
    queryFn: () => unwrap(api.GET('/v1/webhook-endpoints/{id}/deliveries/{delivery_id}', { params: { path: { id: endpointId, delivery_id: deliveryId } } })),
    refetchInterval: (q) => (q.state.data?.data.status === 'pending' ? 2000 : false),
  });
  const back = (
    <p>
      <Link to={`/webhooks/${encodeURIComponent(endpointId)}`}>← Endpoint</Link>
    </p>
  );
  if (query.isPending) return <Loading what="the delivery" />;
  if (query.isError) {
    return (
      <>
        {back}
        <ErrorNotice error={query.error} title="The delivery could not be loaded" />
      </>
    );
  }
  const d = query.data.data;
  return (
    <>
      {back}
      <h1>Delivery of {d.event_type}</h1>
      <dl className="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <span className={`badge status-${d.status}`}>{humanize(d.status)}</span>
          </dd>
        </div>
        <div>
          <dt>Event id</dt>
          <dd>
            <code>{d.event_id}</code> (the <code>webhook-id</code> header of every attempt)
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatTime(d.created_at)}</dd>
        </div>
        <div>
          <dt>Next attempt</dt>
          <dd>{d.next_attempt_at ? formatTime(d.next_attempt_at) : 'None scheduled'}</dd>
        </div>
      </dl>
      <div className="row actions-row">
        <ResendButton delivery={d} />
      </div>
      <h2>Attempts ({d.attempts.length})</h2>
      {d.attempts.length === 0 ? (
        <p className="empty" role="status">
          Not attempted yet.
        </p>
      ) : (
        <TableScroller label="Attempts" stacked>
          <table>
            <thead>
              <tr>
                {ATTEMPT_COLUMNS.map((column) => (
                  <th key={column} scope="col">
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {d.attempts.map((attempt) => (
                <tr key={attempt.attempted_at}>
                  <td data-label={ATTEMPT_COLUMNS[0]}>{formatTime(attempt.attempted_at)}</td>
                  <td data-label={ATTEMPT_COLUMNS[1]} className={attempt.status_code !== null && attempt.status_code < 300 ? 'status-succeeded' : 'status-failed'}>
                    {attempt.status_code !== null ? `HTTP ${attempt.status_code}` : (attempt.error ?? 'No answer')}
                  </td>
                  <td data-label={ATTEMPT_COLUMNS[2]}>{attempt.duration_ms} ms</td>
                  <td data-label={ATTEMPT_COLUMNS[3]} className="wrap">{attempt.response_body ? <code className="excerpt">{attempt.response_body}</code> : <span className="muted">empty</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroller>
      )}
    </>
  );
}
