import { keepPreviousData, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { ErrorNotice, Loading } from '../components/notices';
import { TableScroller } from '../components/table-scroller';
import { formatDuration, formatMoney, formatTime, histogramLabel, humanize, mergeTopics, topicLabel } from '../presentation/format';
import { useConversationStream } from '../components/use-conversation-stream';
import { agentFigures, liveCalls } from '../rules/overview';
import { Link } from '../router';
import { dayEnd, dayStart } from '../rules/conversation-filters';
import { bucketFor, recentDays, shares } from '../rules/overview';
import { navigate, useLocation } from '../router';
import { useAgentsForFilter } from './conversations';
import { TimelineChart } from './timeline-chart';

/** The range and agent live in the address (?start_date=…&end_date=…&agent_id=…), like the conversation filters. */
export function OverviewView() {
  const { search } = useLocation();
  const params = new URLSearchParams(search);
  const fallback = recentDays(14);
  const start = params.get('start_date') || fallback.start;
  const end = params.get('end_date') || fallback.end;
  const agentId = params.get('agent_id') ?? '';
  const bucket = bucketFor(start, end);
  const agents = useAgentsForFilter();
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(search);
    if (value) next.set(key, value);
    else next.delete(key);
    const text = next.toString();
    navigate(`/${text ? `?${text}` : ''}`, { replace: true });
  };
  const query = useQuery({
    queryKey: ['stats', start, end, agentId, bucket],
    queryFn: () =>
      unwrap(api.GET('/v1/conversations/stats', { params: { query: { start_date: dayStart(start), end_date: dayEnd(end), bucket, ...(agentId ? { agent_id: agentId } : {}) } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <h1>Overview</h1>
      <form className="filters" aria-label="Overview range" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor="o-start">From</label>
          <input id="o-start" type="date" value={start} max={end} onChange={(e) => set('start_date', e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="o-end">To</label>
          <input id="o-end" type="date" value={end} min={start} onChange={(e) => set('end_date', e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="o-agent">Agent</label>
          <select id="o-agent" value={agentId} onChange={(e) => set('agent_id', e.target.value)}>
            <option value="">All agents</option>
            {(agents.data?.data ?? []).map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </div>
      </form>
      {query.isPending ? <Loading what="statistics" /> : null}
      {query.isError ? <ErrorNotice error={query.error} title="The statistics could not be loaded" /> : null}
      <LiveNow />
      {query.data ? <Stats stats={query.data.data} /> : null}
      {query.data ? <PerAgent start={start} end={end} agents={(agents.data?.data ?? []).filter((a) => !agentId || a.id === agentId)} /> : null}
    </>
  );
}

function Stats({ stats }: { stats: Schemas['ConversationStats'] }) {
  const histogramMax = Math.max(1, ...stats.duration_histogram.map((b) => b.count));
  const periodColumn = stats.timeline.bucket === 'hour' ? 'Hour (UTC)' : 'Day (UTC)';
  return (
    <>
      <div className="cards figures">
        <Figure label="Calls" value={String(stats.total)} />
        <Figure label="Average duration" value={formatDuration(stats.duration.avg)} />
        <Figure label="90th percentile duration" value={formatDuration(stats.duration.p90)} />
        <Figure label="Total cost" value={formatMoney(stats.cost.total, stats.cost.currency)} />
      </div>
      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">Calls per {stats.timeline.bucket} by status</h2>
        <TimelineChart timeline={stats.timeline} />
        <details>
          <summary>Show the figures as a table</summary>
          <TableScroller label="Calls per period" stacked>
            <table>
              <thead>
                <tr>
                  <th scope="col">{periodColumn}</th>
                  <th scope="col">Completed</th>
                  <th scope="col">Failed</th>
                  <th scope="col">Abandoned</th>
                  <th scope="col">In progress</th>
                </tr>
              </thead>
              <tbody>
                {stats.timeline.points.map((p) => (
                  <tr key={p.start}>
                    <th scope="row" data-label={periodColumn}>
                      {stats.timeline.bucket === 'hour' ? formatTime(p.start).slice(0, 16) : p.start.slice(0, 10)}
                    </th>
                    <td data-label="Completed">{p.completed}</td>
                    <td data-label="Failed">{p.failed}</td>
                    <td data-label="Abandoned">{p.abandoned}</td>
                    <td data-label="In progress">{p.in_progress}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroller>
        </details>
      </section>
      <div className="cards">
        <BarList title="Status" entries={shares(stats.by_status)} />
        <BarList
          title="Sentiment mix"
          entries={shares(stats.by_sentiment)}
          note={
            stats.by_sentiment.unknown
              ? 'Unknown: no sentiment was reported for the call. Calls that failed, were abandoned or are still going have none, nor do calls the platform did not analyse.'
              : undefined
          }
        />
        <BarList title="Outcomes" entries={shares(stats.by_outcome)} />
        <BarList
          title="Top topics"
          entries={shares(Object.fromEntries(mergeTopics(stats.top_topics).map((t) => [t.topic, t.count])))}
          label={topicLabel}
          note="The same topic written differently (Appointment, appointments) is counted once."
        />
      </div>
      <section aria-labelledby="histogram-title">
        <h2 id="histogram-title">Duration histogram</h2>
        <ul className="bars">
          {stats.duration_histogram.map((b) => (
            <li key={b.min}>
              <span>{histogramLabel(b.min, b.max)}</span>
              <span className="bar" style={{ width: `${(b.count / histogramMax) * 100}%` }} />
              <span>{b.count} calls</span>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <section className="card" aria-label={label}>
      <h2>{label}</h2>
      <p className="figure">{value}</p>
    </section>
  );
}

function BarList({ title, entries, note, label = humanize }: { title: string; entries: Array<{ key: string; count: number; percent: number }>; note?: string; label?: (key: string) => string }) {
  const max = Math.max(1, ...entries.map((e) => e.count));
  return (
    <section className="card" aria-label={title}>
      <h2>{title}</h2>
      {entries.length === 0 ? <p className="empty">None in this range.</p> : null}
      <ul className="bars">
        {entries.map((e) => (
          <li key={e.key}>
            <span>{label(e.key)}</span>
            <span className="bar" style={{ width: `${(e.count / max) * 100}%` }} />
            <span>
              {e.count} ({e.percent}%)
            </span>
          </li>
        ))}
      </ul>
      {note && entries.length ? <p className="muted small">{note}</p> : null}
    </section>
  );
}

/** Calls in progress now: the list's in_progress page, then kept up to date from the conversation stream. */
function LiveNow() {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: ['conversations', 'live-now'],
    queryFn: () => unwrap(api.GET('/v1/conversations', { params: { query: { status: 'in_progress', per_page: 10 } } })),
    // Read afresh now and then, so the changes kept on top of it stay few.
    refetchInterval: 60_000,
  });
  const [changes, setChanges] = useState<Schemas['ConversationListItem'][]>([]);
  useEffect(() => setChanges([]), [query.dataUpdatedAt]);
  const state = useConversationStream((item) => setChanges((c) => [...c.filter((x) => x.id !== item.id), item]), {
    onGap: () => void queryClient.invalidateQueries({ queryKey: ['conversations', 'live-now'] }),
  });
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const tick = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(tick);
  }, []);
  const calls = liveCalls(query.data?.data ?? [], changes);
  return (
    <section className="card live-now" aria-labelledby="live-now-title">
      <h2 id="live-now-title">Live now</h2>
      {query.isError ? <ErrorNotice error={query.error} title="Calls in progress could not be loaded" /> : null}
      <p className="muted small" role="status">
        {state === 'open' ? `${calls.length} call${calls.length === 1 ? '' : 's'} in progress` : state === 'retrying' ? 'Reconnecting to live updates…' : 'Connecting to live updates…'}
      </p>
      {calls.length ? (
        <ul className="live-calls">
          {calls.map((c) => (
            <li key={c.id}>
              <Link to={`/conversations/${encodeURIComponent(c.id)}`}>{c.caller_number ?? 'Unknown caller'}</Link>
              <span>{c.agent_name ?? c.agent_id}</span>
              <span className="muted">{c.start_time ? formatDuration(Math.max(0, (now - Date.parse(c.start_time)) / 1000)) : '—'}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/** Each agent's calls, average duration, sentiment and failure rate over the range (one stats read per agent). */
function PerAgent({ start, end, agents }: { start: string; end: string; agents: Array<{ id: string; name: string }> }) {
  const shown = agents.slice(0, 20);
  const results = useQueries({
    queries: shown.map((agent) => ({
      queryKey: ['stats', start, end, agent.id, 'per-agent'],
      queryFn: () => unwrap(api.GET('/v1/conversations/stats', { params: { query: { start_date: dayStart(start), end_date: dayEnd(end), agent_id: agent.id } } })),
    })),
  });
  const rows = agentFigures(shown.map((agent, i) => ({ agent, stats: results[i]?.data?.data })));
  if (!shown.length) return null;
  const columns = ['Agent', 'Calls', 'Average duration', 'Positive', 'Negative', 'Failure rate'];
  return (
    <section aria-labelledby="per-agent-title">
      <h2 id="per-agent-title">Per agent</h2>
      <TableScroller label="Figures per agent" stacked>
        <table>
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                <th scope="row" data-label={columns[0]}>
                  <Link to={`/?agent_id=${encodeURIComponent(row.id)}&start_date=${start}&end_date=${end}`}>{row.name}</Link>
                </th>
                <td data-label={columns[1]}>{row.calls ?? '…'}</td>
                <td data-label={columns[2]}>{row.calls === undefined ? '…' : formatDuration(row.averageDuration)}</td>
                <td data-label={columns[3]}>{row.positivePercent === undefined ? '—' : `${row.positivePercent}%`}</td>
                <td data-label={columns[4]}>{row.negativePercent === undefined ? '—' : `${row.negativePercent}%`}</td>
                <td data-label={columns[5]}>{row.failurePercent === undefined ? '—' : `${row.failurePercent}%`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroller>
      <p className="muted small">Positive and negative: shares of the calls with a sentiment. Failure rate: failed calls among all calls.</p>
    </section>
  );
}
