import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { ApiProblem, api, unwrap, type Schemas } from '../api/client';
import {
  pathsV1ConversationsGetParametersQuerySentimentValues as SENTIMENTS,
  pathsV1ConversationsGetParametersQuerySort_byValues as SORT_BY,
  pathsV1ConversationsGetParametersQueryStatusValues as STATUSES,
} from '../api/schema.generated';
import { describedBy } from '../components/form-field';
import { ListPanel, type ListPage } from '../components/list-panel';
import { useConversationStream } from '../components/use-conversation-stream';
import { formatDuration, formatShortTime, humanize, topicList } from '../presentation/format';
import { withChangedItem } from '../rules/event-stream';
import { inControlWords } from '../rules/problems';
import { recentDays } from '../rules/overview';
import { apiQuery, dayEnd, dayStart, filtersFromSearch, searchFromFilters, withFilter, type ConversationFilters, type FilterKey } from '../rules/conversation-filters';
import { Link, navigate, useLocation } from '../router';
import { DebouncedInput } from './inputs';

/** On a phone the filters would fill the first screen: there they start folded (a summary says how many apply). */
const filtersOpenAtFirst = typeof window !== 'undefined' && window.matchMedia('(min-width: 700px)').matches;

export function useAgentsForFilter() {
  return useQuery({
    queryKey: ['agents', 'all-for-filters'],
    queryFn: () => unwrap(api.GET('/v1/agents', { params: { query: { per_page: 100 } } })),
    staleTime: 60_000,
  });
}

export function ConversationsView() {
  const { search } = useLocation();
  const filters = filtersFromSearch(search);
  const set = (key: FilterKey, value: string) => navigate(`/conversations${searchFromFilters(withFilter(filters, key, value))}`);
  const queryKey = ['conversations', apiQuery(filters)];
  const query = useQuery({
    queryKey,
    queryFn: () => unwrap(api.GET('/v1/conversations', { params: { query: apiQuery(filters) as never } })),
    placeholderData: keepPreviousData,
  });
  useEffect(() => {
    document.title = 'Conversations · Voice agent operations';
  }, []);
  const page = Number(filters.page ?? 1);
  const live = useLiveList(queryKey, page === 1, query.refetch);
  return (
    <>
      <h1>Conversations</h1>
      <Filters filters={filters} set={set} problem={query.error instanceof ApiProblem ? query.error : undefined} />
      <div className="row live-bar">
        <span role="status" className={`live-state live-${live.state}`}>
          {LIVE_STATES[live.state]}
        </span>
        <button type="button" onClick={live.toggle} aria-pressed={live.state === 'paused'}>
          {live.state === 'paused' ? 'Resume live updates' : 'Pause live updates'}
        </button>
      </div>
      <ListPanel
        query={query}
        loadingWhat="conversations"
        errorTitle="The conversations could not be loaded"
        noun="conversations"
        page={page}
        onPage={(p) => set('page', String(p))}
        label="Conversations"
        columns={CONVERSATION_COLUMNS}
        itemKey={(conversation) => conversation.id}
        row={(conversation) => <ConversationRow conversation={conversation} highlight={filters.search} />}
        empty="No conversations match these filters."
        busyWhileFetching
      />
    </>
  );
}

const LIVE_STATES = {
  connecting: 'Connecting to live updates…',
  open: 'Live: new calls appear at the top, calls in progress change as they go',
  retrying: 'Live updates interrupted; reconnecting…',
  paused: 'Live updates paused',
} as const;

/** How soon after a change the first page is read again (several changes in that time make one read). */
const LIVE_REFRESH_MS = 700;

/**
 * The list follows the conversation stream: a change to a row on screen is applied at once; on the first page
 * the list is also read again shortly after (a new call belongs at the top, and filters and sort decide which
 * rows show). Paused, nothing moves.
 */
function useLiveList(queryKey: unknown[], firstPage: boolean, refetch: () => unknown) {
  const queryClient = useQueryClient();
  const [paused, setPaused] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const cancelRefresh = () => {
    clearTimeout(timer.current);
    timer.current = undefined;
  };
  useEffect(() => cancelRefresh, []);
  const refreshSoon = () => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      void refetch();
    }, LIVE_REFRESH_MS);
  };
  const state = useConversationStream(
    (item) => {
      queryClient.setQueryData<{ data: Schemas['ConversationListItem'][] } & ListPage<Schemas['ConversationListItem']>>(queryKey, (old) =>
        old ? { ...old, data: withChangedItem(old.data, item).items } : old,
      );
      if (firstPage) refreshSoon();
    },
    { enabled: !paused, onGap: refreshSoon },
  );
  const toggle = () => {
    // Changes made while paused were not followed: the list is read again on resuming. Pausing also drops a
    // read already planned, so nothing moves after the click.
    if (paused) void refetch();
    else cancelRefresh();
    setPaused(!paused);
  };
  return { state, toggle };
}

const CONVERSATION_COLUMNS = ['Started (UTC)', 'Caller', 'Agent', 'Status', 'Duration', 'Sentiment', 'Outcome', 'Topics and summary'];

/** A click anywhere on the row opens the conversation (its link serves the keyboard and new tabs); a search becomes its highlight. */
function ConversationRow({ conversation: c, highlight }: { conversation: Schemas['ConversationListItem']; highlight?: string }) {
  const to = `/conversations/${encodeURIComponent(c.id)}${highlight ? `?highlight=${encodeURIComponent(highlight)}` : ''}`;
  return (
    <tr className="clickable" onClick={(e) => (e.target as HTMLElement).closest('a') || navigate(to)}>
      <td>
        <Link to={to}>{formatShortTime(c.start_time ?? c.created_at)}</Link>
      </td>
      <td>{c.caller_number ?? '—'}</td>
      <td>{c.agent_name ?? c.agent_id}</td>
      <td>
        <span className={`badge status-${c.status}`}>{humanize(c.status)}</span>
      </td>
      <td>{formatDuration(c.duration)}</td>
      <td>{humanize(c.sentiment)}</td>
      <td>{humanize(c.outcome)}</td>
      <td className="wrap preview">
        <span className="topics">{topicList(c.topics)}</span>
        {c.summary ? <span className="summary muted">{c.summary}</span> : null}
      </td>
    </tr>
  );
}

/** The outcome labels recorded in the last 90 days, offered as the outcome filter's choices (shown in words). */
function useRecentOutcomes(): string[] {
  const range = recentDays(90);
  const query = useQuery({
    queryKey: ['stats', range.start, range.end, '', 'outcomes'],
    queryFn: () => unwrap(api.GET('/v1/conversations/stats', { params: { query: { start_date: dayStart(range.start), end_date: dayEnd(range.end) } } })),
    staleTime: 300_000,
  });
  return Object.keys(query.data?.data.by_outcome ?? {});
}

/** A filter the API refused (its `field` names it) is marked at its control, with the API's message under it. */
function Filters({ filters, set, problem }: { filters: ConversationFilters; set: (key: FilterKey, value: string) => void; problem?: ApiProblem }) {
  const agents = useAgentsForFilter();
  const recentOutcomes = useRecentOutcomes();
  // The API names the parameter (start_date); beside the control the message names the control ("From").
  const errorOf = (key: FilterKey, label = '') => (problem?.field === key ? inControlWords(problem.message, key, label) : undefined);
  const errorText = (key: FilterKey, label: string) =>
    errorOf(key) ? (
      <p id={`f-${key}-error`} className="field-error">
        {errorOf(key, label)}
      </p>
    ) : null;
  const field = (key: FilterKey) => `field${errorOf(key) ? ' invalid' : ''}`;
  const text = (key: FilterKey, label: string, props: Record<string, unknown> = {}) => (
    <div className={field(key)}>
      <label htmlFor={`f-${key}`}>{label}</label>
      <DebouncedInput id={`f-${key}`} value={filters[key] ?? ''} onCommit={(v) => set(key, v)} {...describedBy(`f-${key}`, errorOf(key))} {...props} />
      {errorText(key, label)}
    </div>
  );
  const date = (key: 'start_date' | 'end_date', label: string) => (
    <div className={field(key)}>
      <label htmlFor={`f-${key}`}>{label}</label>
      <input id={`f-${key}`} type="date" value={filters[key] ?? ''} onChange={(e) => set(key, e.target.value)} {...describedBy(`f-${key}`, errorOf(key))} />
      {errorText(key, label)}
    </div>
  );
  const choice = (key: FilterKey, label: string, options: ReadonlyArray<readonly [string, string]>, any = 'Any', fallback = '') => (
    <div className={field(key)}>
      <label htmlFor={`f-${key}`}>{label}</label>
      <select id={`f-${key}`} value={filters[key] ?? fallback} onChange={(e) => set(key, e.target.value)} {...describedBy(`f-${key}`, errorOf(key))}>
        {any ? <option value="">{any}</option> : null}
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
      {errorText(key, label)}
    </div>
  );
  const yesNo = [['true', 'Yes'], ['false', 'No']] as const;
  const active = Object.keys(filters).filter((k) => k !== 'page' && k !== 'per_page' && k !== 'sort_by' && k !== 'sort_order').length;
  return (
    <details className="filters-panel" open={filtersOpenAtFirst || problem?.field !== undefined}>
      <summary>Filters{active ? ` (${active} active)` : ''}</summary>
    <form className="filters" role="search" aria-label="Filter conversations" onSubmit={(e) => e.preventDefault()}>
      {text('search', 'Search', { type: 'search', placeholder: 'Words in transcripts and summaries' })}
      {date('start_date', 'From')}
      {date('end_date', 'To')}
      {choice('agent_id', 'Agent', (agents.data?.data ?? []).map((a) => [a.id, a.name] as const), 'All agents')}
      {choice('status', 'Status', STATUSES.map((s) => [s, humanize(s)] as const))}
      {choice('sentiment', 'Sentiment', SENTIMENTS.map((s) => [s, humanize(s)] as const))}
      {text('outcome', 'Outcome', { placeholder: 'e.g. appointment_booked', list: 'outcome-choices' })}
      <datalist id="outcome-choices">
        {recentOutcomes.map((outcome) => (
          <option key={outcome} value={outcome} label={humanize(outcome)} />
        ))}
      </datalist>
      {text('topic', 'Topic')}
      {text('caller', 'Caller number', { placeholder: '+14155550123', inputMode: 'tel' })}
      {text('min_duration', 'Min duration (s)', { type: 'number', min: 0, inputMode: 'numeric' })}
      {text('max_duration', 'Max duration (s)', { type: 'number', min: 0, inputMode: 'numeric' })}
      {text('min_cost', 'Min cost (USD)', { type: 'number', min: 0, step: '0.01' })}
      {text('max_cost', 'Max cost (USD)', { type: 'number', min: 0, step: '0.01' })}
      {choice('has_recording', 'Recording', yesNo)}
      {choice('has_transcript', 'Transcript', yesNo)}
      {choice('sort_by', 'Sort by', SORT_BY.map((s) => [s, humanize(s)] as const), '', 'start_time')}
      {choice('sort_order', 'Order', [['desc', 'Descending'], ['asc', 'Ascending']], '', 'desc')}
      {choice('per_page', 'Per page', ['10', '25', '50', '100'].map((n) => [n, n] as const), '', '25')}
      <div className="field actions">
        <Link to="/conversations">Clear filters</Link>
      </div>
    </form>
    </details>
  );
}
