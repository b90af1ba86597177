import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { ListPanel } from '../components/list-panel';
import { ErrorNotice } from '../components/notices';
import { humanize, platformName } from '../presentation/format';
import { Link, navigate } from '../router';

type Agent = Schemas['Agent'];

const AGENT_COLUMNS = ['Name', 'Platform', 'Phone number', 'Language', 'Status', 'Platform sync', 'Actions'];

export function AgentsView() {
  const [page, setPage] = useState(1);
  const [notice] = useState(takeNotice);
  const query = useQuery({
    queryKey: ['agents', 'list', page],
    queryFn: () => unwrap(api.GET('/v1/agents', { params: { query: { page, per_page: 25 } } })),
    placeholderData: keepPreviousData,
    // An agent's platform sync settles shortly after a change: look again while one is pending.
    refetchInterval: (q) => (q.state.data?.data.some((a) => a.platform_sync.state === 'pending') ? 2000 : false),
  });
  return (
    <>
      <div className="row heading-row">
        <h1>Agents</h1>
        <Link to="/agents/new" className="button-link primary">
          New agent
        </Link>
      </div>
      {notice ? (
        <p className="notice ok" role="status">
          {notice}
        </p>
      ) : null}
      <ListPanel
        query={query}
        loadingWhat="agents"
        errorTitle="The agents could not be loaded"
        noun="agents"
        page={page}
        onPage={setPage}
        label="Agents"
        columns={AGENT_COLUMNS}
        itemKey={(agent) => agent.id}
        row={(agent) => <AgentRow agent={agent} />}
        empty={
          <>
            No agents yet. <Link to="/agents/new">Create the first one</Link>.
          </>
        }
      />
    </>
  );
}

function AgentRow({ agent }: { agent: Agent }) {
  return (
    <tr>
      <th scope="row">
        <Link to={`/agents/${encodeURIComponent(agent.id)}`}>{agent.name}</Link>
      </th>
      <td>{platformName(agent.voice_platform)}</td>
      <td>{agent.phone_number ?? '—'}</td>
      <td>{agent.language}</td>
      <td>
        <span className={`badge status-${agent.status}`}>{humanize(agent.status)}</span>
      </td>
      <td>
        <SyncState agent={agent} />
      </td>
      <td>
        <AgentActions agent={agent} />
      </td>
    </tr>
  );
}

export function SyncState({ agent }: { agent: Agent }) {
  const sync = agent.platform_sync;
  return (
    <>
      <span className={`badge state-${sync.state}`}>{humanize(sync.state)}</span>
      {sync.last_error ? <small className="muted"> {typeof sync.last_error === 'string' ? sync.last_error : JSON.stringify(sync.last_error)}</small> : null}
    </>
  );
}

/** Pause or resume, and delete after a confirmation that names the agent. */
export function AgentActions({ agent, afterDelete }: { agent: Agent; afterDelete?: () => void }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['agents'] });
  const toggle = useMutation({
    mutationFn: () => unwrap(api.PATCH('/v1/agents/{id}', { params: { path: { id: agent.id } }, body: { status: agent.status === 'active' ? 'paused' : 'active' } })),
    onSuccess: (result) => {
      queryClient.setQueryData(['agent', agent.id], result);
      return refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/v1/agents/{id}', { params: { path: { id: agent.id } } })),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: ['agent', agent.id] });
      await refresh();
      afterDelete?.();
    },
  });
  const action = agent.status === 'active' ? 'Pause' : 'Resume';
  return (
    <div className="row">
      <button type="button" onClick={() => toggle.mutate()} disabled={toggle.isPending} aria-label={`${action} ${agent.name}`}>
        {action}
      </button>
      {confirming ? (
        <span role="group" aria-label={`Confirm deleting ${agent.name}`} className="row">
          <span>Delete {agent.name}?</span>
          <button type="button" className="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
            Confirm delete
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </span>
      ) : (
        <button type="button" className="danger" onClick={() => setConfirming(true)} aria-label={`Delete ${agent.name}`}>
          Delete
        </button>
      )}
      {toggle.isError ? <ErrorNotice error={toggle.error} title={`${action} failed`} /> : null}
      {remove.isError ? <ErrorNotice error={remove.error} title="Delete failed" /> : null}
    </div>
  );
}

let pendingNotice: string | undefined;
const takeNotice = () => {
  const notice = pendingNotice;
  pendingNotice = undefined;
  return notice;
};

/** After a create or delete, the list says once what happened. */
export function goToAgentsList(notice: string) {
  pendingNotice = notice;
  navigate('/agents');
}
