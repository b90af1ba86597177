#!/usr/bin/env node
// `npm run bench` — the conversation list at a million conversations in one account.
// Loads the read model straight into a fresh database (schema from the service's own
// migrations; two accounts with the same per-account conversation ids), then times the
// real list handler (filters, search, sorts, deep and middle pages, exact totals) against
// raw baselines in the same run, EXPLAINs the very statements the handler sent for the
// worst cases, and writes the headline figures into BENCHMARKS.md, every case into
// bench/results/conversations-list.md and the plans into bench/results/explain-plans.md.
// Needs `npm run build` and a PostgreSQL (BENCH_DATABASE_URL, default the local server).
// Not part of `npm test`; it takes a few minutes.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { writeBenchmarkSection } from './support.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const OTHER_ROWS = Number(process.env.BENCH_OTHER_ROWS ?? 50_000);
// The other rows, spread evenly over this many accounts (the 10M figures: 5M in one account, 5M over 1,000 others).
const OTHER_ACCOUNTS = Number(process.env.BENCH_OTHER_ACCOUNTS ?? 1);
// The sections a run writes are named by its size in millions of rows, all accounts together: list-1m, list-10m.
// (BENCH_SIZE names it otherwise: to try the report on a small run, then `git checkout` what it wrote.)
const SIZE = process.env.BENCH_SIZE ?? `${Math.round((ROWS + OTHER_ROWS) / 1_000_000)}m`;
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const keep = process.env.BENCH_KEEP === '1';
// BENCH_UNPARTITIONED=1 measures the tables as they were before partitioning by account (the migration undone in
// place), for the comparison that chose it: run both ways with BENCH_SIZE set, then `git checkout` what they wrote.
const UNPARTITIONED = process.env.BENCH_UNPARTITIONED === '1';
const dist = (...p) => pathToFileURL(join(root, ...p)).href;
for (const p of ['libs/service-kit/dist/index.js', 'apps/conversations-service/dist/list-conversations/list-conversations.handler.js']) {
  if (!existsSync(join(root, p))) {
    console.error('bench: build first (npm run build)');
    process.exit(1);
  }
}
const { openDatabase } = await import(dist('libs/service-kit/dist/index.js'));
const { conversationsMigrations, CONVERSATIONS_SCHEMA } = await import(dist('apps/conversations-service/dist/database/conversations-database.js'));
const { PartitionedByAccount1766000000000 } = await import(dist('apps/conversations-service/dist/database/migrations/1766000000000-partitioned-by-account.js'));
const { ListConversationsHandler } = await import(dist('apps/conversations-service/dist/list-conversations/list-conversations.handler.js'));
const { ListConversations } = await import(dist('apps/conversations-service/dist/list-conversations/list-conversations.query.js'));
const { GetConversationStatsHandler, statsMemoryOf } = await import(dist('apps/conversations-service/dist/conversation-stats/conversation-stats.handler.js'));
const { GetConversationStats } = await import(dist('apps/conversations-service/dist/conversation-stats/conversation-stats.query.js'));
const { DEFAULT_TUNING } = await import(dist('apps/conversations-service/dist/config/service-context.js'));

// Rows shaped like the simulator's calls: every status, sentiment incl. unknown, outcomes,
// topics, transcripts and summaries (with an order number, so selective searches exist).
const LOAD_SQL = `
WITH g AS (
  SELECT n, random() AS r_status, random() AS r_sent, floor(random() * 5)::int AS sc, random() AS r_rec, random() AS r_tr,
         floor(random() * 900 + 20)::int AS dur, timestamptz '2024-01-01' + random() * interval '365 days' AS ts
    FROM generate_series($3::int, $4::int) n
), s AS (
  SELECT g.*,
         CASE WHEN r_status < 0.6 THEN 'completed' WHEN r_status < 0.72 THEN 'failed' WHEN r_status < 0.85 THEN 'abandoned' ELSE 'in_progress' END AS status,
         CASE WHEN r_sent < 0.25 THEN 'positive' WHEN r_sent < 0.5 THEN 'neutral' WHEN r_sent < 0.75 THEN 'negative' END AS sentiment,
         (ARRAY['Caller reported a duplicate charge on the invoice; refund issued.', 'Appointment booked for Tuesday 10:30.', 'Internet outage reported; transferred to a network specialist.', 'Prospect asked about the 50% off first_month promotion.', 'Caller demanded cancellation; escalated to retention.'])[sc + 1] AS scenario_summary,
         (ARRAY['Thanks for calling, how can I help you today? I was charged twice on my last invoice. I will refund it now. Great, thank you so much.', 'Hello, you have reached the clinic front desk. I would like to book a check-up next Tuesday. Tuesday at 10:30 is available. Yes please.', 'Support line, what seems to be the problem? My internet has been down since this morning. Let me transfer you to a network specialist.', 'Hi! Are you interested in our spring offer? Is it really 50% off for the first_month? Yes, 50% off the first month for new customers.', 'I want to cancel my subscription right now. I am sorry to hear that, may I ask why? The service keeps failing.'])[sc + 1] AS transcript,
         (ARRAY['resolved', 'appointment_booked', 'transferred', 'lead_captured', 'escalated'])[sc + 1] AS scenario_outcome,
         (ARRAY[ARRAY['billing', 'invoice'], ARRAY['appointment', 'scheduling'], ARRAY['technical_support', 'Internet'], ARRAY['sales', 'pricing'], ARRAY['cancellation', 'retention']])[sc + 1:sc + 1] AS topics2
    FROM g
), r AS (
  SELECT s.*,
         CASE WHEN status = 'completed' THEN scenario_summary || ' Order #' || n END AS summary,
         status <> 'abandoned' AND r_tr < 0.85 AS has_transcript,
         status = 'completed' AND r_rec < 0.8 AS has_recording,
         CASE WHEN status = 'abandoned' THEN 0 ELSE dur END AS duration,
         CASE WHEN status = 'completed' THEN scenario_outcome END AS outcome,
         ARRAY(SELECT unnest(topics2)) AS topics
    FROM s
)
INSERT INTO conversations.conversations (id, account_id, agent_id, caller_number, status, start_time, end_time, duration, sentiment, sentiment_rank,
  outcome, topics, topics_lower, has_recording, has_transcript, summary, search_text, detail, stream_version, voice_platform, created_at, updated_at)
SELECT 'call-' || lpad(n::text, 8, '0'), $1, $2 || (n % 20), '+1415555' || lpad((n % 5000)::text, 4, '0'), status, ts,
       CASE WHEN status IN ('completed', 'failed') THEN ts + duration * interval '1 second' END, duration, sentiment,
       CASE sentiment WHEN 'negative' THEN 0 WHEN 'neutral' THEN 1 WHEN 'positive' THEN 2 END,
       outcome, topics, ARRAY(SELECT lower(t) FROM unnest(topics) t), has_recording, has_transcript, summary,
       lower(coalesce(summary, '') || E'\\n' || CASE WHEN has_transcript THEN transcript ELSE '' END),
       jsonb_build_object('id', 'call-' || lpad(n::text, 8, '0'), 'status', status, 'summary', summary, 'topics', topics,
                          'transcript', CASE WHEN has_transcript THEN jsonb_build_array(jsonb_build_object('speaker', 'agent', 'text', transcript, 'start_ms', 0, 'end_ms', duration * 1000)) ELSE '[]'::jsonb END),
       3, CASE WHEN n % 2 = 0 THEN 'platform_a' ELSE 'platform_b' END, ts, ts
  FROM r`;

const log = (m) => process.stderr.write(`[bench] ${m}\n`);
// BENCH_REPORT_ONLY=1: only the 10M comparison again, from the figures the two runs kept (no database, no timing).
if (process.env.BENCH_REPORT_ONLY === '1') {
  const kept = readFigures('1m');
  if (kept) writeBenchmarkSection('list-1m', headlineOf(kept), 'BENCHMARKS.md');
  writeScaleSections(readFigures('10m'), kept);
  log('wrote the list-1m and list-10m sections of BENCHMARKS.md and the list-10m-vs-1m section of bench/results/conversations-list.md');
  process.exit(0);
}
// BENCH_EXISTING_DATABASE=<name>: measure again on the database a BENCH_KEEP=1 run of the same size left, without
// loading it (its pending migrations run, as a deployment's would); the load figures are that run's.
const EXISTING = process.env.BENCH_EXISTING_DATABASE;
const dbName = EXISTING ?? `voice_bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
if (!EXISTING) await admin.query(`CREATE DATABASE "${dbName}"`);
const url = new URL(adminUrl);
url.pathname = `/${dbName}`;
const ACCOUNT = 'acc_bench_big';
const OTHER_ACCOUNTS_IDS = OTHER_ACCOUNTS === 1 ? ['acc_bench_small'] : Array.from({ length: OTHER_ACCOUNTS }, (_, i) => `acc_bench_small_${i}`);
const PER_PAGE = 25;
let dataSource;
let db;
try {
  dataSource = await openDatabase({ url: url.toString(), schema: CONVERSATIONS_SCHEMA, migrations: conversationsMigrations, poolSize: 4 });
  if (UNPARTITIONED && !EXISTING) await dataSource.transaction((manager) => new PartitionedByAccount1766000000000().down(manager.queryRunner));
  db = new pg.Client({ connectionString: url.toString() });
  db.on('error', () => undefined);
  await db.connect();
  const pgVersion = (await db.query('SHOW server_version')).rows[0].server_version;
  const pgSettings = (await db.query(`SELECT string_agg(name || '=' || current_setting(name), ', ' ORDER BY name) AS s FROM pg_settings
                                       WHERE name IN ('shared_buffers', 'work_mem', 'max_parallel_workers_per_gather', 'jit', 'effective_cache_size')`)).rows[0].s;

  // ---- load ----
  // Every secondary index of the read model and its side tables, as the migrations left them
  // (primary keys stay: the load must respect the (account_id, id) identity).
  const { rows: indexDefs } = await db.query(
    `SELECT indexname, indexdef FROM pg_indexes
      WHERE schemaname = 'conversations' AND tablename IN ('conversations', 'conversation_search', 'conversation_topics')
        AND indexname NOT LIKE '%_pkey' ORDER BY tablename, indexname`,
  );
  const agentPrefix = { [ACCOUNT]: 'agt_bench_', ...Object.fromEntries(OTHER_ACCOUNTS_IDS.map((a, i) => [a, OTHER_ACCOUNTS === 1 ? 'agt_small_' : `agt_small_${i}_`])) };
  let loadSeconds;
  let indexSeconds;
  if (EXISTING) {
    // Only the 1M and 10M runs keep their figures; another size reports its load as unknown.
    ({ rows_s: loadSeconds, indexes_s: indexSeconds } = readFigures(SIZE)?.load ?? { rows_s: NaN, indexes_s: NaN });
    // What a pending migration backfilled has no statistics yet.
    await db.query('VACUUM (ANALYZE) conversations.conversation_counts');
    log(`measuring on ${dbName} as loaded (${loadSeconds.toFixed(0)} s for its rows)`);
  } else {
    for (const { indexname } of indexDefs) await db.query(`DROP INDEX conversations.${indexname}`);
    for (const account of [ACCOUNT, ...OTHER_ACCOUNTS_IDS]) {
      await db.query(`INSERT INTO conversations.agents (agent_id, account_id, name, voice_platform, recording_enabled, transcription_enabled, status, version)
                      SELECT $2 || i, $1, 'Bench agent ' || i, CASE WHEN i % 2 = 0 THEN 'platform_a' ELSE 'platform_b' END, true, true, 'active', 1
                        FROM generate_series(0, 19) i`, [account, agentPrefix[account]]);
    }
    const loadStarted = Date.now();
    const chunk = 100_000;
    // Both accounts use the same conversation ids ('call-00000001', ...): ids are only unique per account,
    // so every read that forgets the account would show up as duplicated or foreign rows (checked below).
    const load = async (account, total) => {
      for (let from = 1; from <= total; from += chunk) {
        await db.query(LOAD_SQL, [account, agentPrefix[account], from, Math.min(total, from + chunk - 1)]);
        if (total >= chunk) log(`loaded ${Math.min(total, from + chunk - 1).toLocaleString()} / ${total.toLocaleString()} rows of ${account}`);
      }
    };
    await db.query('SELECT setseed(0.42)');
    await load(ACCOUNT, ROWS);
    for (const [i, account] of OTHER_ACCOUNTS_IDS.entries()) {
      // Spread evenly; the first accounts take the remainder.
      await load(account, Math.floor(OTHER_ROWS / OTHER_ACCOUNTS) + (i < OTHER_ROWS % OTHER_ACCOUNTS ? 1 : 0));
      if (OTHER_ACCOUNTS > 1 && (i + 1) % 100 === 0) log(`loaded ${i + 1} / ${OTHER_ACCOUNTS} other accounts`);
    }
    loadSeconds = (Date.now() - loadStarted) / 1000;
    // The side tables the projection keeps with each row (the migrations' backfill statements).
    await db.query(`INSERT INTO conversations.conversation_search (id, account_id, search_text, start_time, status, agent_id)
                    SELECT id, account_id, search_text, start_time, status, agent_id FROM conversations.conversations`);
    await db.query(`INSERT INTO conversations.conversation_topics (account_id, topic, conversation_id, start_time, status, agent_id)
                    SELECT DISTINCT c.account_id, t, c.id, c.start_time, c.status, c.agent_id FROM conversations.conversations c, unnest(c.topics_lower) AS t`);
    const indexStarted = Date.now();
    await db.query(`SET maintenance_work_mem = '512MB'`);
    for (const { indexname, indexdef } of indexDefs) {
      // A partitioned table's index reads `ON ONLY` (the parent alone); it is to be built on every partition.
      await db.query(indexdef.replace(' ON ONLY ', ' ON '));
      log(`index ${indexname} built`);
    }
    indexSeconds = (Date.now() - indexStarted) / 1000;
    // What the projection keeps up to date per new conversation (the migration's backfill statement).
    await db.query(`INSERT INTO conversations.account_totals (account_id, conversations)
                    SELECT account_id, count(*) FROM conversations.conversations GROUP BY account_id`);
    const { FACET_COUNTS_SQL } = await import(dist('apps/conversations-service/dist/conversation/conversation-counts.js'));
    await db.query(`INSERT INTO conversations.conversation_counts (account_id, facet, value, conversations) ${FACET_COUNTS_SQL}`);
    for (const t of ['conversations', 'conversation_search', 'conversation_topics', 'agents', 'account_totals', 'conversation_counts']) {
      await db.query(`VACUUM (ANALYZE) conversations.${t}`);
    }
  }
  // Summed over the partitions, if any (a partitioned table holds nothing itself).
  const size = (await db.query(`SELECT pg_size_pretty(sum(pg_total_relation_size(relid))) AS total, pg_size_pretty(sum(pg_relation_size(relid))) AS heap
                                  FROM (SELECT relid FROM pg_partition_tree('conversations.conversations')
                                        UNION SELECT 'conversations.conversations'::regclass) t`)).rows[0];

  // ---- measure ----
  // The service's own data source, wrapped only to record the statements the handler sends (for the plans).
  let recording = null;
  const record = (sql, params) => {
    if (recording && !/^\s*(BEGIN|COMMIT|ROLLBACK|START|SET)\b/i.test(sql)) recording.push({ sql, params: params ?? [] });
  };
  const recordingSource = {
    query: (sql, params) => (record(sql, params), dataSource.query(sql, params)),
    createQueryRunner: () => {
      const runner = dataSource.createQueryRunner();
      const query = runner.query.bind(runner);
      runner.query = (sql, params, ...rest) => (record(sql, params), query(sql, params, ...rest));
      return runner;
    },
  };
  // The columns in memory, one per process as the service has them, shared by the list (searches) and the stats.
  const memory = statsMemoryOf({ dataSource: recordingSource, tuning: DEFAULT_TUNING });
  const handler = new ListConversationsHandler({ dataSource: recordingSource, tuning: DEFAULT_TUNING }, memory);
  const run = (query) => handler.execute(new ListConversations(ACCOUNT, query));
  const statementsOf = async (query) => {
    recording = [];
    try {
      await run(query);
      return recording;
    } finally {
      recording = null;
    }
  };
  /** `runs` timed calls of fn: their times in ms, sorted, and the last call's result. */
  const sampled = async (fn, runs) => {
    const samples = [];
    let result;
    for (let i = 0; i < runs; i++) {
      const t0 = process.hrtime.bigint();
      result = await fn();
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    return { samples: samples.sort((a, b) => a - b), result };
  };
  const median = (samples) => samples[Math.floor(samples.length / 2)];
  const quantile = (samples, q) => samples[Math.ceil(samples.length * q) - 1];
  const time = async (fn) => {
    for (let i = 0; i < 2; i++) await fn();
    const { samples, result } = await sampled(fn, RUNS);
    return { median: median(samples), p90: quantile(samples, 0.9), result };
  };
  // How the handler read the page: the inner LIMIT/OFFSET it sent, and whether it read from the far end.
  const isPageRead = (sql) => /\) page\s|\bpage AS \(/.test(sql);
  const pageReadOf = (statements, total) => {
    const page = statements.find((s) => isPageRead(s.sql));
    if (!page) return 'none (past the end)';
    const [limit, offset] = page.params.slice(-2);
    // Read by the sort keys the columns in memory found (page-by-keys.ts).
    if (/start_time = ANY\(/.test(page.sql)) return `by ${page.params[page.params.length - 3].length} keys from the columns in memory, LIMIT ${limit} OFFSET ${offset}`;
    // The one-pass read sends the forward LIMIT/OFFSET and reads past the middle from the far end itself.
    if (/\bpage AS \(/.test(page.sql)) {
      const rows = Math.max(0, Math.min(limit, total - offset));
      if (rows === 0) return 'with the total in one pass, past the end';
      return 2 * offset > total
        ? `with the total in one pass, reverse, LIMIT ${rows} OFFSET ${Math.max(0, total - offset - rows).toLocaleString('en-US')}`
        : `with the total in one pass, LIMIT ${limit} OFFSET ${Number(offset).toLocaleString('en-US')}`;
    }
    // Compared without table aliases: the page's ids may come from a side table carrying the sort key.
    const unaliased = (order) => order?.replace(/\b[a-z]\.(?=[a-z_]+)/g, '').replace(/conversation_id/g, 'id').trim();
    const inner = unaliased(/ORDER BY (.*?)\s+LIMIT/s.exec(page.sql)?.[1]);
    const outer = unaliased(/ORDER BY ([^()]*)$/s.exec(page.sql.trim())?.[1]);
    return `${inner === outer ? '' : 'reverse, '}LIMIT ${limit} OFFSET ${Number(offset).toLocaleString('en-US')}`;
  };
  const results = [];
  const baseline = async (name, sql, params) => {
    const { median, p90 } = await time(() => db.query(sql, params));
    results.push({ group: 'baseline', name, median, p90, total: '', read: '' });
    log(`${name}: ${median.toFixed(2)} ms`);
  };
  const statementsByCase = new Map();
  const list = async (name, query) => {
    // One untimed run records what the handler sends; then the timed runs (with their own warm-ups).
    // A search's first asking is answered by SQL while its matches are remembered with the columns in the
    // background: timed and shown beside the page read; the statements and timed runs come once it is remembered.
    const firstStarted = process.hrtime.bigint();
    await run(query);
    const first = Number(process.hrtime.bigint() - firstStarted) / 1e6;
    await memory.idle(ACCOUNT);
    const statements = await statementsOf(query);
    statementsByCase.set(name, { query, statements });
    const { median, p90, result } = await time(() => run(query));
    // Ids are per account: a page must hold distinct conversations, at most per_page of them.
    const ids = result.items.map((i) => i.id);
    if (new Set(ids).size !== ids.length || ids.length > result.per_page) throw new Error(`${name}: page has duplicate or too many rows`);
    if (result.items.some((i) => !i.agent_id.startsWith(agentPrefix[ACCOUNT]))) throw new Error(`${name}: page has another account's rows`);
    const read = `${pageReadOf(statements, result.total)}${query.search === undefined ? '' : `; first asked ${first.toFixed(0)} ms`}`;
    results.push({ group: 'list', name, query, median, p90, total: result.total, read, first });
    log(`${name}: ${median.toFixed(2)} ms (total ${result.total}, ${pageReadOf(statements, result.total)})`);
  };
  const totalOf = async (query) => (await run({ ...query, page: '1' })).total;
  const middlePage = (total) => String(Math.floor(total / 2 / PER_PAGE));
  const lastPage = (total) => String(Math.max(1, Math.ceil(total / PER_PAGE)));

  const middleOffset = (Number(middlePage(ROWS)) - 1) * PER_PAGE;
  await baseline('raw count(*) of the account', `SELECT count(*) FROM conversations.conversations WHERE account_id = $1`, [ACCOUNT]);
  await baseline('raw keyset read of 25 by start_time (one index)', `SELECT id, start_time FROM conversations.conversations WHERE account_id = $1 ORDER BY start_time DESC, id DESC LIMIT 25`, [ACCOUNT]);
  await baseline(`raw OFFSET ${middleOffset.toLocaleString('en-US')} read of 25 by start_time (one index; the floor of the middle page)`,
    `SELECT id FROM conversations.conversations WHERE account_id = $1 ORDER BY start_time DESC, id DESC LIMIT 25 OFFSET ${middleOffset}`, [ACCOUNT]);
  await baseline('raw primary-key lookup (account_id, id)', `SELECT id FROM conversations.conversations WHERE account_id = $1 AND id = $2`, [ACCOUNT, 'call-00500000']);
  await baseline('raw count of "refund" on conversation_search (trigram index, recheck)',
    `SELECT count(*) FROM conversations.conversation_search WHERE account_id = $1 AND search_text LIKE '%refund%'`, [ACCOUNT]);

  // Loaded before the list cases: a search of this account is then paged from the columns.
  const heapBefore = process.memoryUsage();
  const warmStarted = process.hrtime.bigint();
  await memory.warm(ACCOUNT);
  const statsLoad = {
    seconds: Number(process.hrtime.bigint() - warmStarted) / 1e9,
    rows: memory.rowsHeld,
    // What the service counts against STATS_MEMORY_BUDGET_MB, beside what the heap grew by.
    countedMiB: memory.bytesHeld / 2 ** 20,
    heapMiB: (process.memoryUsage().heapUsed - heapBefore.heapUsed + process.memoryUsage().arrayBuffers - heapBefore.arrayBuffers) / 2 ** 20,
  };
  log(`columns in memory loaded: ${statsLoad.rows} rows in ${statsLoad.seconds.toFixed(1)} s, ~${statsLoad.heapMiB.toFixed(0)} MiB (counted ${statsLoad.countedMiB.toFixed(0)} MiB)`);

  const someCaller = '+14155550042';
  await list('default (page 1, newest first)', {});
  await list('page 2', { page: '2' });
  await list('deep page 1,000', { page: '1000' });
  await list(`middle page (offset ~${(ROWS / 2).toLocaleString('en-US')})`, { page: middlePage(ROWS) });
  await list('last page', { page: lastPage(ROWS) });
  await list('per_page 100', { per_page: '100' });
  await list('agent_id', { agent_id: 'agt_bench_7' });
  await list('agent_id + status', { agent_id: 'agt_bench_7', status: 'completed' });
  await list('status=failed', { status: 'failed' });
  await list('sentiment=negative', { sentiment: 'negative' });
  await list('outcome=appointment_booked', { outcome: 'appointment_booked' });
  await list('caller (E.164)', { caller: someCaller });
  await list('min_duration=800', { min_duration: '800' });
  await list('duration 100..120', { min_duration: '100', max_duration: '120' });
  await list('one day (start_date..end_date)', { start_date: '2024-06-01', end_date: '2024-06-01' });
  await list('one week', { start_date: '2024-06-03', end_date: '2024-06-09' });
  await list('one month', { start_date: '2024-06-01', end_date: '2024-06-30' });
  await list('has_recording=true', { has_recording: 'true' });
  await list('has_transcript=false', { has_transcript: 'false' });
  await list('topic=internet', { topic: 'Internet' });
  await list('topic + status', { topic: 'billing', status: 'completed' });
  await list('search selective ("order #123456")', { search: 'order #123456' });
  await list('search broad ("refund", ~17%)', { search: 'refund' });
  await list('search broad, page 3,000', { search: 'refund', page: '3000' });
  await list('search broad, page 5,000 (read from the far end)', { search: 'refund', page: '5000' });
  await list('search broad + agent', { search: 'refund', agent_id: 'agt_bench_7' });
  await list('search + status', { search: 'invoice', status: 'completed' });
  await list('search no match ("zebra crossing")', { search: 'zebra crossing' });
  await list('search 2 chars ("ok", no trigram)', { search: 'ok' });
  await list('search literal % ("50% off")', { search: '50% off' });
  await list('sort duration desc', { sort_by: 'duration' });
  await list('sort duration asc, page 500', { sort_by: 'duration', sort_order: 'asc', page: '500' });
  await list('sort sentiment asc', { sort_by: 'sentiment', sort_order: 'asc' });
  await list('sort sentiment desc', { sort_by: 'sentiment', sort_order: 'desc' });
  await list('combined: completed + positive + agent + month', { status: 'completed', sentiment: 'positive', agent_id: 'agt_bench_3', start_date: '2024-03-01', end_date: '2024-03-31' });
  await list('combined: search + status, sort duration', { search: 'invoice', status: 'completed', sort_by: 'duration' });
  // Deep pages of filtered lists: the middle (the farthest from either end) and the last page.
  for (const [name, filter] of [
    ['status=completed', { status: 'completed' }],
    ['status=failed', { status: 'failed' }],
    ['has_recording=true', { has_recording: 'true' }],
    ['topic=billing', { topic: 'billing' }],
    ['topic + status', { topic: 'billing', status: 'completed' }],
    ['search broad', { search: 'refund' }],
    ['search + status', { search: 'invoice', status: 'completed' }],
  ]) {
    const total = await totalOf(filter);
    await list(`${name}, middle page`, { ...filter, page: middlePage(total) });
    await list(`${name}, last page`, { ...filter, page: lastPage(total) });
  }

  // ---- stats: GET /v1/conversations/stats' handler (every figure of the filtered set, one snapshot), p95 of 20 runs ----
  // As the service answers (this account is large: from columns in memory, loaded first) and, as the baseline,
  // the same figures read by SQL alone (fewer runs: each takes seconds).
  const statsHandler = new GetConversationStatsHandler({ dataSource, tuning: DEFAULT_TUNING }, memory);
  const sqlStatsHandler = new GetConversationStatsHandler({ dataSource, tuning: { ...DEFAULT_TUNING, statsMemoryMinRows: Number.MAX_SAFE_INTEGER } });
  const STATS_RUNS = 20;
  const SQL_STATS_RUNS = Number(process.env.BENCH_SQL_STATS_RUNS ?? 5);
  // Counted once more with the searches the list remembered (a byte per conversation each, four per match once ordered).
  statsLoad.countedWithSearchesMiB = memory.bytesHeld / 2 ** 20;
  const statsResults = [];
  // The warm-up call is timed too: a search's first asking (before its matches are remembered).
  const timeRuns = async (run, runs) => {
    const { samples: [first] } = await sampled(run, 1);
    const { samples, result } = await sampled(run, runs);
    return { answer: result, first, median: median(samples), p95: quantile(samples, 0.95) };
  };
  for (const [name, query] of [
    ['all of 2024 (day buckets)', {}],
    ['one month (day buckets)', { start_date: '2024-06-01', end_date: '2024-06-30' }],
    ['two days (hour buckets)', { start_date: '2024-06-01', end_date: '2024-06-02' }],
    ['one agent', { agent_id: 'agt_bench_7' }],
    ['status=completed', { status: 'completed' }],
    ['topic=billing', { topic: 'billing' }],
    ['search broad ("refund")', { search: 'refund' }],
  ]) {
    const ours = await timeRuns(() => statsHandler.execute(new GetConversationStats(ACCOUNT, query)), STATS_RUNS);
    const sql = await timeRuns(() => sqlStatsHandler.execute(new GetConversationStats(ACCOUNT, query)), SQL_STATS_RUNS);
    if (JSON.stringify(ours.answer) !== JSON.stringify(sql.answer)) throw new Error(`stats ${name}: the answer differs from SQL's`);
    statsResults.push({ name, query, first: ours.first, median: ours.median, p95: ours.p95, sqlMedian: sql.median, total: ours.answer.total });
    log(`stats ${name}: p95 ${ours.p95.toFixed(1)} ms, SQL median ${sql.median.toFixed(1)} ms (total ${ours.answer.total})`);
  }

  // ---- plans: EXPLAIN ANALYZE of exactly the statements the handler sent for these cases ----
  const planned = [
    'default (page 1, newest first)', `middle page (offset ~${(ROWS / 2).toLocaleString('en-US')})`, 'last page',
    'agent_id + status', 'status=failed', 'status=failed, last page', 'status=completed, middle page', 'has_recording=true',
    'topic=internet', 'topic=billing, middle page', 'topic + status', 'topic + status, middle page',
    'search selective ("order #123456")', 'search broad ("refund", ~17%)', 'search broad, page 3,000',
    'search broad, page 5,000 (read from the far end)', 'search broad, middle page', 'search + status', 'search + status, middle page',
    'combined: search + status, sort duration', 'search 2 chars ("ok", no trigram)', 'sort sentiment desc',
  ];
  const plans = [];
  for (const name of planned) {
    const { query, statements } = statementsByCase.get(name);
    const explained = [];
    for (const { sql, params } of statements) {
      const kind = isPageRead(sql) ? (/count\(\*\)/.test(sql) ? 'page and total' : 'page') : /count\(\*\)|account_totals|conversation_counts/.test(sql) ? 'total' : 'statement';
      const lines = (await db.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, params)).rows.map((r) => r['QUERY PLAN'].replace(/\s+$/, ''));
      explained.push({ kind, sql: sql.replace(/\s+/g, ' ').trim(), params, lines });
    }
    plans.push({ name, query, explained });
  }

  // ---- report ----
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${os.platform()} ${os.release()}, Node ${process.version}, PostgreSQL ${pgVersion} (${pgSettings})`;
  const fmt = (n) => n.toFixed(2);
  const timeOf = (lines) => {
    const top = /actual time=[\d.]+\.\.([\d.]+) rows=(\d+)/.exec(lines[0] ?? '');
    const exec = lines.find((l) => l.startsWith('Execution Time'));
    return `${exec ?? ''}${top ? ` (top node: ${lines[0].trim().split(' (')[0]}, ${top[2]} rows)` : ''}`;
  };
  const qs = (query) => new URLSearchParams(query).toString() || '(no parameters)';
  const md = `## Conversation list at ${ROWS.toLocaleString('en-US')} conversations in one account

Command: \`npm run build && ${SIZE === '1m' ? 'npm run bench:list' : `BENCH_ROWS=${ROWS} BENCH_OTHER_ROWS=${OTHER_ROWS} BENCH_OTHER_ACCOUNTS=${OTHER_ACCOUNTS} BENCH_SQL_STATS_RUNS=${SQL_STATS_RUNS} npm run bench:list`}\` (env: \`BENCH_ROWS\`, \`BENCH_OTHER_ROWS\`, \`BENCH_OTHER_ACCOUNTS\`, \`BENCH_RUNS\`, \`BENCH_SQL_STATS_RUNS\`, \`BENCH_DATABASE_URL\`, \`BENCH_KEEP=1\` keeps the database, \`BENCH_EXISTING_DATABASE=<its name>\` measures on it again without loading).
Run on ${new Date().toISOString()}: ${machine}.

What it does: a fresh database gets the conversations-service schema from its own migrations; ${ROWS.toLocaleString('en-US')} read-model rows
for one account plus ${OTHER_ROWS.toLocaleString('en-US')} for ${OTHER_ACCOUNTS === 1 ? 'another' : `${OTHER_ACCOUNTS.toLocaleString('en-US')} others`} — with the same conversation ids (ids are per account) — are loaded
with multi-row \`INSERT … SELECT\` (secondary indexes dropped during the load and re-created from the migrations' own definitions),
the side tables filled with the migrations' backfill statements, then \`VACUUM ANALYZE\`. Start times are spread at random
over 2024 independently of the physical row order (correlation ≈ 0; real ingest is roughly in start-time order), so an index
scan that must check a column on the heap pays a random heap access per row: a pessimistic layout. Each case runs the real
\`ListConversationsHandler\` with the service's default tuning (parameter parsing, page query + exact total, in parallel below
offset ${DEFAULT_TUNING.deepPageOffset.toLocaleString('en-US')}, in one snapshot from there on, reading from the nearer end; agent-name join) ${RUNS} times after 2 warm-ups; times are
wall-clock in milliseconds, without the NATS/HTTP hop. Every page is checked to hold distinct conversations of the account.
Baselines are raw single-statement reads in the same run on the same data. "page read" is the LIMIT/OFFSET the handler
sent for the page's ids (reverse = read from the far end in the inverse order).

Load${EXISTING ? ' (as recorded by the last full run of this size; this run measured a database it kept)' : ''}: ${loadSeconds.toFixed(0)} s for the rows, ${indexSeconds.toFixed(0)} s for the ${indexDefs.length} secondary indexes (side tables filled in between). Table size: ${size.total} (heap ${size.heap}).

| case | median ms | p90 ms | total matches | page read |
|---|---:|---:|---:|---|
${results.map((r) => `| ${r.group === 'baseline' ? `_baseline:_ ${r.name}` : `${r.name} \`${qs(r.query)}\``} | ${fmt(r.median)} | ${fmt(r.p90)} | ${r.total === '' ? '' : r.total.toLocaleString('en-US')} | ${r.read} |`).join('\n')}

### GET /v1/conversations/stats at ${ROWS.toLocaleString('en-US')} conversations

The stats handler (every figure of the filtered set — totals by status, sentiment and outcome, top topics, duration
average/p50/p90 and histogram, the timeline, cost — in one snapshot) ${STATS_RUNS} times after a warm-up, per case, as the
service answers: this account's figures come from its columns in memory (loaded once per process in the background:
${statsLoad.rows.toLocaleString('en-US')} conversations in ${statsLoad.seconds.toFixed(1)} s; the heap grew by ~${statsLoad.heapMiB.toFixed(0)} MiB, ${statsLoad.countedMiB.toFixed(0)} MiB counted against
\`STATS_MEMORY_BUDGET_MB\`), brought up to date with the rows
written since the previous answer before each one. A search's matches come from SQL (the trigram index and its
recheck of every match) on its first asking, then are remembered and kept up to date: "first" is that first asking.
Baseline: the same figures by SQL alone (the service's path for small accounts), ${SQL_STATS_RUNS} runs; every answer
equal to SQL's (checked).

| case | first ms | median ms | p95 ms | SQL alone, median ms | ratio (SQL / ours, median) | total |
|---|---:|---:|---:|---:|---:|---:|
${statsResults.map((r) => `| ${r.name} \`${qs(r.query)}\` | ${fmt(r.first)} | ${fmt(r.median)} | ${fmt(r.p95)} | ${fmt(r.sqlMedian)} | ${(r.sqlMedian / r.median).toFixed(1)}× | ${r.total.toLocaleString('en-US')} |`).join('\n')}
`;
  const plansMd = `## Plans

\`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)\` of each statement the handler sent for the case, in the order it sent them
(recorded from one real run of the handler, then explained one by one with the same parameters after the timings; from
offset ${DEFAULT_TUNING.deepPageOffset.toLocaleString('en-US')} the handler sends them in one REPEATABLE READ snapshot, total first). \`shared hit\` pages came from
PostgreSQL's buffers, \`read\` ones from the OS page cache or disk.

${plans.map((p) => `### ${p.name} — \`${qs(p.query)}\`\n\n${p.explained.map((e) => `**${e.kind}** — ${timeOf(e.lines)}\n\n<details><summary>statement</summary>\n\n\`\`\`sql\n${e.sql}\n-- parameters: ${JSON.stringify(e.params)}\n\`\`\`\n</details>\n\n\`\`\`\n${e.lines.join('\n')}\n\`\`\``).join('\n\n')}`).join('\n\n')}
`;
  if (UNPARTITIONED) {
    // The move into partitions on the loaded tables, timed, while a reader lists the account's first page again and
    // again: how long writers wait, and what readers notice.
    let moving = true;
    const reads = [];
    let failedReads = 0;
    const reading = (async () => {
      while (moving) {
        const t0 = performance.now();
        await run({}).then(() => reads.push(performance.now() - t0), () => (failedReads += 1));
      }
    })();
    const t0 = performance.now();
    await dataSource.transaction((manager) => new PartitionedByAccount1766000000000().up(manager.queryRunner));
    const seconds = (performance.now() - t0) / 1000;
    moving = false;
    await reading;
    reads.sort((a, b) => a - b);
    log(`migration into partitions: ${seconds.toFixed(1)} s for ${(ROWS + OTHER_ROWS).toLocaleString('en-US')} conversations in the read model and its side tables (this bench loads no events); ` +
      `${reads.length} list reads during it (median ${median(reads).toFixed(1)} ms, max ${reads.at(-1).toFixed(0)} ms), ${failedReads} failed`);
  }
  // Its own sections, named by the run's size; the other benchmarks' sections and the notes around them stay. The
  // figures (no plans) are kept beside them, so the 10M run can set each case beside the 1M run's.
  const figures = { rows: ROWS, other_rows: OTHER_ROWS, other_accounts: OTHER_ACCOUNTS, at: new Date().toISOString(), machine, load: { rows_s: loadSeconds, indexes_s: indexSeconds, size, ...(EXISTING ? { kept_database: true } : {}) }, results, statsLoad, statsResults };
  if (SIZE === '1m' || SIZE === '10m') {
    writeFileSync(join(root, `bench/results/conversations-list-${SIZE}.json`), `${JSON.stringify(figures, null, 1)}\n`);
    if (SIZE === '1m') writeBenchmarkSection('list-1m', headlineOf({ machine, results, statsResults }), 'BENCHMARKS.md');
    else writeScaleSections(figures, readFigures('1m'));
    writeBenchmarkSection(`list-${SIZE}`, md.trimEnd(), 'bench/results/conversations-list.md');
    writeBenchmarkSection(`list-${SIZE}`, plansMd.trimEnd(), 'bench/results/explain-plans.md');
    log(`wrote the list-${SIZE} sections of BENCHMARKS.md, bench/results/conversations-list.md and explain-plans.md, and conversations-list-${SIZE}.json`);
  } else {
    process.stdout.write(`${md}\n`);
    log(`${ROWS + OTHER_ROWS} rows: the tables are printed above; only runs at 1M and 10M rows write their sections`);
  }
  // The raw results, for whoever writes the notes (not committed).
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ rows: ROWS, runs: RUNS, machine, results, statsLoad, statsResults, plans }, null, 2));
} catch (err) {
  console.error('[bench] failed:', err);
  process.exitCode = 1;
} finally {
  await db?.end().catch(() => undefined);
  await dataSource?.destroy().catch(() => undefined);
  if (!keep && !EXISTING) await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
  else log(`kept database ${dbName}`);
  await admin.end();
}

/** The figures a run at that size kept (bench/results/conversations-list-<size>.json), if any. */
function readFigures(size) {
  const file = join(root, `bench/results/conversations-list-${size}.json`);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}

/** The 10M run beside the 1M run: its headline in BENCHMARKS.md, every case in bench/results/conversations-list.md. */
function writeScaleSections(large, small) {
  const { headline, tables } = scaleOf(large, small);
  writeBenchmarkSection('list-10m', headline, 'BENCHMARKS.md');
  writeBenchmarkSection('list-10m-vs-1m', tables, 'bench/results/conversations-list.md');
}

/**
 * Every list shape and stats case of the 10M run beside the 1M run's median (the cases are the same, in the same
 * order; a middle or last page's offset follows its total), and the ratio the target bounds (≤ 2×): a headline, and
 * the whole tables.
 */
function scaleOf(large, small) {
  const fmt = (n) => n.toFixed(2);
  const lists = large.results.filter((r) => r.group === 'list');
  const before = small?.results.filter((r) => r.group === 'list') ?? [];
  const statsBefore = small?.statsResults ?? [];
  const ratio = (a, b) => (b ? `${(a / b).toFixed(2)}×` : '–');
  const rows = lists.map((r, i) => ({ name: r.name, now: r.median, then: before[i]?.median, total: r.total }));
  const stats = large.statsResults.map((r, i) => ({ name: r.name, now: r.median, p95: r.p95, then: statsBefore[i]?.median, total: r.total }));
  const over = [...rows, ...stats].filter((r) => r.then && r.now > 2 * r.then);
  const when = small ? `the 1M run of ${small.at} (same code unless BENCHMARKS.md says otherwise)` : 'no 1M run kept (bench/results/conversations-list-1m.json)';
  const statsRatios = stats.filter((r) => r.then).map((r) => r.now / r.then);
  const title = `${(large.rows + large.other_rows).toLocaleString('en-US')} conversations: ${large.rows.toLocaleString('en-US')} in one account, ${large.other_rows.toLocaleString('en-US')} over ${large.other_accounts.toLocaleString('en-US')} others — beside 1M`;
  const headline = `**${title}: ${over.length === 0 ? 'No list shape or stats case is slower than 2× its 1M median' : `${over.length} of ${rows.length + stats.length} cases are slower than 2× their 1M median`}; stats ${statsRatios.length ? `${Math.min(...statsRatios).toFixed(2)}–${Math.max(...statsRatios).toFixed(2)}×` : '–'}. Stats columns of the large account: ${large.statsLoad.rows.toLocaleString('en-US')} conversations in ${large.statsLoad.countedMiB.toFixed(0)} MiB counted against \`STATS_MEMORY_BUDGET_MB\`, loaded in ${large.statsLoad.seconds.toFixed(0)} s.** Every case beside its 1M median: [bench/results/conversations-list.md](bench/results/conversations-list.md).
Run on ${large.at}, compared with ${when}. Load${large.load.kept_database ? ' (of the last full run; this one measured the database it kept)' : ''}: ${large.load.rows_s.toFixed(0)} s for the rows, ${large.load.indexes_s.toFixed(0)} s for the indexes; table ${large.load.size.total} (heap ${large.load.size.heap}).`;
  const tables = `## ${title}

Medians in ms of the run on ${large.at} (${large.machine}), beside ${when}. The stats columns' heap grew by
${large.statsLoad.heapMiB.toFixed(0)} MiB for ${large.statsLoad.countedMiB.toFixed(0)} MiB counted.

| case | 1M median ms | 10M median ms | 10M / 1M | total matches at 10M |
|---|---:|---:|---:|---:|
${rows.map((r) => `| ${r.name} | ${r.then === undefined ? '–' : fmt(r.then)} | ${fmt(r.now)} | ${ratio(r.now, r.then)} | ${r.total.toLocaleString('en-US')} |`).join('\n')}

| stats case | 1M median ms | 10M median ms | 10M p95 ms | 10M / 1M | total at 10M |
|---|---:|---:|---:|---:|---:|
${stats.map((r) => `| ${r.name} | ${r.then === undefined ? '–' : fmt(r.then)} | ${fmt(r.now)} | ${fmt(r.p95)} | ${ratio(r.now, r.then)} | ${r.total.toLocaleString('en-US')} |`).join('\n')}`;
  return { headline, tables };
}

/** BENCHMARKS.md's part: the worst medians beside the raw floors of the same run, a few typical cases, and the stats. */
function headlineOf({ machine, results, statsResults, at = new Date().toISOString() }) {
  const fmt = (n) => n.toFixed(2);
  const cases = results.filter((r) => r.group === 'list');
  const slowest = (rows) => rows.reduce((w, r) => (r.median > w.median ? r : w), rows[0]);
  const baselineNamed = (start) => results.find((r) => r.group === 'baseline' && r.name.startsWith(start));
  const withoutSearch = slowest(cases.filter((r) => !r.query.search));
  const withSearch = slowest(cases.filter((r) => r.query.search));
  const offsetFloor = baselineNamed('raw OFFSET');
  const searchCount = baselineNamed('raw count of "refund"');
  const range = (values) => `${fmt(Math.min(...values))}–${fmt(Math.max(...values))}`;
  const shown = [
    'default (page 1, newest first)', `middle page (offset ~${(ROWS / 2).toLocaleString('en-US')})`, 'status=completed, middle page',
    'topic + status, middle page', 'search broad ("refund", ~17%)', 'search broad, middle page', 'search + status, middle page',
  ];
  const rows = [...results.filter((r) => r.group === 'baseline'), ...cases.filter((r) => shown.includes(r.name))];
  return `### Latest run: ${ROWS.toLocaleString('en-US')} conversations in one account

**Without a substring search every case's median is ≤ ${fmt(withoutSearch.median)} ms (${withoutSearch.name}), beside the raw ${fmt(offsetFloor.median)} ms of the middle page's OFFSET alone; with one, up to ${fmt(withSearch.median)} ms (${withSearch.name}), beside the raw ${fmt(searchCount.median)} ms of counting "refund" alone. Stats: p95 ${range(statsResults.map((r) => r.p95))} ms where SQL alone takes ${range(statsResults.map((r) => r.sqlMedian))} ms (median).**

Run on ${at}: ${machine}.
Median and p90 of ${RUNS} runs after 2 warm-ups, in ms. A few of the ${cases.length} cases here; every case, the load and the method in
[bench/results/conversations-list.md](bench/results/conversations-list.md), the plans in [bench/results/explain-plans.md](bench/results/explain-plans.md).

| case | median ms | p90 ms | total matches | page read |
|---|---:|---:|---:|---|
${rows.map((r) => `| ${r.group === 'baseline' ? `_baseline:_ ${r.name}` : r.name} | ${fmt(r.median)} | ${fmt(r.p90)} | ${r.total === '' ? '' : r.total.toLocaleString('en-US')} | ${r.read} |`).join('\n')}

| stats case | first ms | median ms | p95 ms | SQL alone, median ms | ratio (SQL / ours, median) |
|---|---:|---:|---:|---:|---:|
${statsResults.map((r) => `| ${r.name} | ${fmt(r.first)} | ${fmt(r.median)} | ${fmt(r.p95)} | ${fmt(r.sqlMedian)} | ${(r.sqlMedian / r.median).toFixed(1)}× |`).join('\n')}`;
}
