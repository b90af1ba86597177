import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { ErrorNotice, Loading } from '../components/notices';
import { TableScroller } from '../components/table-scroller';
import { formatDuration, formatMoney, formatTime, histogramLabel, humanize } from '../presentation/format';
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
      {query.data ? <Stats stats={query.data.data} /> : null}
    </>
  );
}

function Stats({ stats }: { stats: Schemas['ConversationStats'] }) {
  const histogramMax = Math.max(1, ...stats.duration_histogram.map((b) => b.count));
  return (
    <>
      <div className="cards">
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
          <TableScroller label="Calls per period">
            <table>
              <thead>
                <tr>
                  <th scope="col">{stats.timeline.bucket === 'hour' ? 'Hour' : 'Day'} (UTC)</th>
                  <th scope="col">Completed</th>
                  <th scope="col">Failed</th>
                  <th scope="col">Abandoned</th>
                  <th scope="col">In progress</th>
                </tr>
              </thead>
              <tbody>
                {stats.timeline.points.map((p) => (
                  <tr key={p.start}>
                    <th scope="row">{stats.timeline.bucket === 'hour' ? formatTime(p.start).slice(0, 16) : p.start.slice(0, 10)}</th>
                    <td>{p.completed}</td>
                    <td>{p.failed}</td>
                    <td>{p.abandoned}</td>
                    <td>{p.in_progress}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroller>
        </details>
      </section>
      <div className="cards">
        <BarList title="Status" entries={shares(stats.by_status)} />
        <BarList title="Sentiment mix" entries={shares(stats.by_sentiment)} />
        <BarList title="Outcomes" entries={shares(stats.by_outcome)} />
        <BarList title="Top topics" entries={shares(Object.fromEntries(stats.top_topics.map((t) => [t.topic, t.count])))} />
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

function BarList({ title, entries }: { title: string; entries: Array<{ key: string; count: number; percent: number }> }) {
  const max = Math.max(1, ...entries.map((e) => e.count));
  return (
    <section className="card" aria-label={title}>
      <h2>{title}</h2>
      {entries.length === 0 ? <p className="empty">None in this range.</p> : null}
      <ul className="bars">
        {entries.map((e) => (
          <li key={e.key}>
            <span>{humanize(e.key)}</span>
            <span className="bar" style={{ width: `${(e.count / max) * 100}%` }} />
            <span>
              {e.count} ({e.percent}%)
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
