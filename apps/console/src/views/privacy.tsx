import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { ApiProblem, api, downloadFile, unwrap, type Schemas } from '../api/client';
import { pathsV1AuditEventsGetParametersQueryActionValues as ACTIONS } from '../api/schema.generated';
import { describedBy, Field } from '../components/form-field';
import { ListPanel } from '../components/list-panel';
import { ErrorNotice } from '../components/notices';
import { formatShortTime, humanize } from '../presentation/format';
import { actionLabel, actorLabel, progressLabel } from '../presentation/privacy-labels';
import { inControlWords } from '../rules/problems';
import {
  anyUnfinished, auditFiltersFromSearch, auditQuery, callerNumberProblem, canDownload, searchWithAuditFilter,
  type AuditFilterKey, type AuditFilters,
} from '../rules/privacy';
import { navigate, useLocation } from '../router';
import { DebouncedInput } from './inputs';

/** Callers' data requests (erasure, access) and the account's audit log. */
export function PrivacyView() {
  return (
    <>
      <h1>Privacy</h1>
      <p className="muted">
        Erase or export everything the service holds about one caller, and see who changed what in this account. Redaction, zero retention and how
        long calls are kept are set per agent, on the agent’s page.
      </p>
      <DataRequests />
      <AuditLog />
    </>
  );
}

const REQUEST_COLUMNS = ['Created (UTC)', 'Type', 'Caller', 'Status', 'Progress', 'Export'];

function DataRequests() {
  const [page, setPage] = useState(1);
  const query = useQuery({
    queryKey: ['data-requests', page],
    queryFn: () => unwrap(api.GET('/v1/data-requests', { params: { query: { page, per_page: 10 } } })),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (anyUnfinished(q.state.data?.data ?? []) ? 1500 : false),
  });
  return (
    <section aria-labelledby="data-requests-title">
      <h2 id="data-requests-title">Data requests</h2>
      <NewDataRequest />
      <ListPanel
        query={query}
        loadingWhat="data requests"
        errorTitle="The data requests could not be loaded"
        noun="requests"
        page={page}
        onPage={setPage}
        label="Data requests"
        columns={REQUEST_COLUMNS}
        itemKey={(r) => r.id}
        row={(r) => <DataRequestRow request={r} />}
        empty="No data requests yet."
      />
    </section>
  );
}

/** An erasure asks for a confirmation that names the number (it cannot be undone); an access request does not. */
function NewDataRequest() {
  const queryClient = useQueryClient();
  const [type, setType] = useState<'erasure' | 'access'>('access');
  const [caller, setCaller] = useState('');
  const [localError, setLocalError] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  const [created, setCreated] = useState<Schemas['DataRequest']>();
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/v1/data-requests', { body: { type, caller_number: caller.trim() } })),
    onSuccess: async (result) => {
      setCreated(result.data);
      setCaller('');
      setConfirming(false);
      await queryClient.invalidateQueries({ queryKey: ['data-requests'] });
    },
    onError: () => setConfirming(false),
  });
  const problem = create.error instanceof ApiProblem ? create.error : undefined;
  const callerError = localError ?? (problem?.field === 'caller_number' ? inControlWords(problem.message, 'caller_number', 'Caller number') : undefined);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setCreated(undefined);
    const mistake = callerNumberProblem(caller);
    setLocalError(mistake);
    if (mistake) return;
    if (type === 'erasure' && !confirming) {
      setConfirming(true);
      return;
    }
    create.mutate();
  };
  const hint = 'E.164, as the calls recorded it, e.g. +14155550100';
  return (
    <form className="narrow-form" onSubmit={submit} aria-labelledby="new-request-title" noValidate>
      <h3 id="new-request-title">New request</h3>
      <fieldset>
        <legend>What to do</legend>
        <div className="field check">
          <input id="request-access" type="radio" name="request-type" checked={type === 'access'} onChange={() => { setType('access'); setConfirming(false); }} />
          <label htmlFor="request-access">Access: one JSON document of every conversation of the caller, to download for 24 hours</label>
        </div>
        <div className="field check">
          <input id="request-erasure" type="radio" name="request-type" checked={type === 'erasure'} onChange={() => { setType('erasure'); setConfirming(false); }} />
          <label htmlFor="request-erasure">Erasure: remove every conversation of the caller from every store, for good</label>
        </div>
      </fieldset>
      <Field id="request-caller" label="Caller number" error={callerError} hint={hint}>
        <input
          id="request-caller"
          inputMode="tel"
          autoComplete="off"
          value={caller}
          onChange={(e) => {
            setCaller(e.target.value);
            setLocalError(undefined);
            setConfirming(false);
          }}
          {...describedBy('request-caller', callerError, hint)}
        />
      </Field>
      {problem && problem.field !== 'caller_number' ? <ErrorNotice error={problem} title="The request could not be made" /> : null}
      {confirming ? (
        <div className="notice error" role="group" aria-label="Confirm the erasure">
          <p>
            Erase every conversation of <strong>{caller.trim()}</strong>? This cannot be undone.
          </p>
          <div className="row">
            <button type="submit" className="danger" disabled={create.isPending}>
              Confirm erasure
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <button type="submit" className="primary" disabled={create.isPending}>
          {type === 'erasure' ? 'Erase…' : 'Request access'}
        </button>
      )}
      {created ? (
        <p className="notice ok" role="status">
          {humanize(created.type)} request for {created.caller_number} created; its progress is below.
        </p>
      ) : null}
    </form>
  );
}

function DataRequestRow({ request: r }: { request: Schemas['DataRequest'] }) {
  const [downloadError, setDownloadError] = useState<unknown>();
  const download = async () => {
    setDownloadError(undefined);
    try {
      await downloadFile(`/v1/data-requests/${encodeURIComponent(r.id)}/download`, `access-${r.id}.json`);
    } catch (err) {
      setDownloadError(err);
    }
  };
  const share = r.conversations_found ? Math.round((r.conversations_done / r.conversations_found) * 100) : r.status === 'completed' ? 100 : 0;
  return (
    <tr>
      <td>{formatShortTime(r.created_at)}</td>
      <td>{humanize(r.type)}</td>
      <td>{r.caller_number}</td>
      <td>
        <span className={`badge status-${r.status}`}>{humanize(r.status)}</span>
      </td>
      <td className="wrap-narrow">
        <progress max={100} value={share} aria-label={`Progress of ${r.type} request ${r.id}`} /> {progressLabel(r)}
      </td>
      <td className="wrap-narrow">
        {canDownload(r) ? (
          <>
            <button type="button" onClick={() => void download()} aria-label={`Download the export of ${r.caller_number}`}>
              Download
            </button>
            <small className="muted"> until {formatShortTime(r.download_expires_at)}</small>
          </>
        ) : r.type === 'access' && r.status === 'completed' ? (
          <span className="muted">Expired</span>
        ) : (
          '—'
        )}
        {downloadError ? <ErrorNotice error={downloadError} title="The export could not be downloaded" /> : null}
      </td>
    </tr>
  );
}

const AUDIT_COLUMNS = ['When (UTC)', 'Action', 'Who', 'Target', 'Changed fields', 'From', 'Request id'];

function AuditLog() {
  const { search } = useLocation();
  const filters = auditFiltersFromSearch(search);
  const set = (key: AuditFilterKey, value: string) => navigate(`/privacy${searchWithAuditFilter(filters, key, value)}`, { replace: key !== 'page' });
  const query = useQuery({
    queryKey: ['audit-events', auditQuery(filters)],
    queryFn: () => unwrap(api.GET('/v1/audit-events', { params: { query: auditQuery(filters) as never } })),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit log</h2>
      <AuditFiltersForm filters={filters} set={set} problem={query.error instanceof ApiProblem ? query.error : undefined} />
      <ListPanel
        query={query}
        loadingWhat="the audit log"
        errorTitle="The audit log could not be loaded"
        noun="entries"
        page={Number(filters.page ?? 1)}
        onPage={(p) => set('page', String(p))}
        label="Audit log"
        columns={AUDIT_COLUMNS}
        itemKey={(e) => e.id}
        row={(e) => (
          <tr>
            <td>{formatShortTime(e.created_at)}</td>
            <td>{actionLabel(e.action)}</td>
            <td className="wrap-narrow">{actorLabel(e.actor)}</td>
            <td className="wrap-narrow">{e.target_id ? <code>{e.target_id}</code> : '—'}</td>
            <td className="wrap-narrow">{e.changed_fields?.length ? e.changed_fields.map(humanize).join(', ') : '—'}</td>
            <td>{e.client_address ?? '—'}</td>
            <td className="wrap-narrow">{e.request_id ? <code>{e.request_id}</code> : '—'}</td>
          </tr>
        )}
        empty="No entries match these filters."
        busyWhileFetching
      />
    </section>
  );
}

const AUDIT_LABELS: Record<Exclude<AuditFilterKey, 'page'>, string> = {
  action: 'Action',
  actor_key_id: 'API key id',
  target_id: 'Target id',
  created_after: 'From',
  created_before: 'To',
};

function AuditFiltersForm({ filters, set, problem }: { filters: AuditFilters; set: (key: AuditFilterKey, value: string) => void; problem?: ApiProblem }) {
  const errorOf = (key: Exclude<AuditFilterKey, 'page'>) => (problem?.field === key ? inControlWords(problem.message, key, AUDIT_LABELS[key]) : undefined);
  const field = (key: Exclude<AuditFilterKey, 'page'>, input: (props: ReturnType<typeof describedBy> & { id: string }) => ReactNode) => (
    <div className={`field${errorOf(key) ? ' invalid' : ''}`}>
      <label htmlFor={`a-${key}`}>{AUDIT_LABELS[key]}</label>
      {input({ id: `a-${key}`, ...describedBy(`a-${key}`, errorOf(key)) })}
      {errorOf(key) ? (
        <p id={`a-${key}-error`} className="field-error">
          {errorOf(key)}
        </p>
      ) : null}
    </div>
  );
  return (
    <form className="filters" role="search" aria-label="Filter the audit log" onSubmit={(e) => e.preventDefault()}>
      {field('action', (props) => (
        <select {...props} value={filters.action ?? ''} onChange={(e) => set('action', e.target.value)}>
          <option value="">Any</option>
          {ACTIONS.map((a) => (
            <option key={a} value={a}>
              {actionLabel(a)}
            </option>
          ))}
        </select>
      ))}
      {field('actor_key_id', (props) => <DebouncedInput {...props} value={filters.actor_key_id ?? ''} onCommit={(v) => set('actor_key_id', v)} placeholder="key_…" />)}
      {field('target_id', (props) => <DebouncedInput {...props} value={filters.target_id ?? ''} onCommit={(v) => set('target_id', v)} placeholder="agt_…, dr_…" />)}
      {field('created_after', (props) => <input {...props} type="date" value={filters.created_after ?? ''} onChange={(e) => set('created_after', e.target.value)} />)}
      {field('created_before', (props) => <input {...props} type="date" value={filters.created_before ?? ''} onChange={(e) => set('created_before', e.target.value)} />)}
    </form>
  );
}
