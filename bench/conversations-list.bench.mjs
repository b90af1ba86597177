#!/usr/bin/env node
// `npm run bench` — the conversation list at a million conversations in one account.
// Loads the read model straight into a fresh database (schema from the service's own
// migrations), then times the real list handler (filters, search, sorts, deep pages,
// exact totals) against raw baselines in the same run, and writes BENCHMARKS.md.
// Needs `npm run build` and a PostgreSQL (BENCH_DATABASE_URL, default the local server).
// Not part of `npm test`; it takes a few minutes.
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const OTHER_ROWS = Number(process.env.BENCH_OTHER_ROWS ?? 50_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const keep = process.env.BENCH_KEEP === '1';
const dist = (...p) => pathToFileURL(join(root, ...p)).href;
for (const p of ['libs/service-kit/dist/index.js', 'apps/conversations-service/dist/list-conversations/list-conversations.handler.js']) {
  if (!existsSync(join(root, p))) {
    console.error('bench: build first (npm run build)');
    process.exit(1);
  }
}
const { openDatabase } = await import(dist('libs/service-kit/dist/index.js'));
const { conversationsMigrations, CONVERSATIONS_SCHEMA } = await import(dist('apps/conversations-service/dist/database/migrations.js'));
const { ListConversationsHandler } = await import(dist('apps/conversations-service/dist/list-conversations/list-conversations.handler.js'));
const { ListConversations } = await import(dist('apps/conversations-service/dist/list-conversations/list-conversations.query.js'));

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
  outcome, topics, topics_lower, has_recording, has_transcript, summary, search_text, detail, stream_version, created_at, updated_at)
SELECT 'bench-' || $2 || '-' || lpad(n::text, 8, '0'), $1, 'agt_bench_' || (n % 20), '+1415555' || lpad((n % 5000)::text, 4, '0'), status, ts,
       CASE WHEN status IN ('completed', 'failed') THEN ts + duration * interval '1 second' END, duration, sentiment,
       CASE sentiment WHEN 'negative' THEN 0 WHEN 'neutral' THEN 1 WHEN 'positive' THEN 2 END,
       outcome, topics, ARRAY(SELECT lower(t) FROM unnest(topics) t), has_recording, has_transcript, summary,
       lower(coalesce(summary, '') || E'\\n' || CASE WHEN has_transcript THEN transcript ELSE '' END),
       jsonb_build_object('id', 'bench-' || $2 || '-' || lpad(n::text, 8, '0'), 'status', status, 'summary', summary, 'topics', topics,
                          'transcript', CASE WHEN has_transcript THEN jsonb_build_array(jsonb_build_object('speaker', 'agent', 'text', transcript, 'start_ms', 0, 'end_ms', duration * 1000)) ELSE '[]'::jsonb END),
       3, ts, ts
  FROM r`;

const log = (m) => process.stderr.write(`[bench] ${m}\n`);
const dbName = `voice_bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`CREATE DATABASE "${dbName}"`);
const url = new URL(adminUrl);
url.pathname = `/${dbName}`;
const ACCOUNT = 'acc_bench_big';
let dataSource;
let db;
try {
  dataSource = await openDatabase({ url: url.toString(), schema: CONVERSATIONS_SCHEMA, migrations: conversationsMigrations, poolSize: 4 });
  db = new pg.Client({ connectionString: url.toString() });
  db.on('error', () => undefined);
  await db.connect();
  const pgVersion = (await db.query('SHOW server_version')).rows[0].server_version;

  // ---- load ----
  const { rows: indexDefs } = await db.query(
    `SELECT indexname, indexdef FROM pg_indexes
      WHERE schemaname = 'conversations' AND tablename IN ('conversations', 'conversation_search') AND indexname NOT LIKE '%_pkey'`,
  );
  for (const { indexname } of indexDefs) await db.query(`DROP INDEX conversations.${indexname}`);
  await db.query(`INSERT INTO conversations.agents (agent_id, account_id, name, voice_platform, recording_enabled, transcription_enabled, status, version)
                  SELECT 'agt_bench_' || i, $1, 'Bench agent ' || i, CASE WHEN i % 2 = 0 THEN 'platform_a' ELSE 'platform_b' END, true, true, 'active', 1
                    FROM generate_series(0, 19) i`, [ACCOUNT]);
  const loadStarted = Date.now();
  const chunk = 100_000;
  const load = async (account, prefix, total) => {
    for (let from = 1; from <= total; from += chunk) {
      await db.query(LOAD_SQL, [account, prefix, from, Math.min(total, from + chunk - 1)]);
      log(`loaded ${Math.min(total, from + chunk - 1).toLocaleString()} / ${total.toLocaleString()} rows of ${account}`);
    }
  };
  await db.query('SELECT setseed(0.42)');
  await load(ACCOUNT, 'big', ROWS);
  await load('acc_bench_small', 'small', OTHER_ROWS);
  const loadSeconds = (Date.now() - loadStarted) / 1000;
  // The side tables the projection keeps with each row (the migrations' backfill statements).
  await db.query(`INSERT INTO conversations.conversation_search (id, account_id, search_text)
                  SELECT id, account_id, search_text FROM conversations.conversations`);
  await db.query(`INSERT INTO conversations.conversation_topics (account_id, topic, conversation_id)
                  SELECT DISTINCT c.account_id, t, c.id FROM conversations.conversations c, unnest(c.topics_lower) AS t`);
  const indexStarted = Date.now();
  await db.query(`SET maintenance_work_mem = '512MB'`);
  for (const { indexname, indexdef } of indexDefs) {
    await db.query(indexdef);
    log(`index ${indexname} built`);
  }
  const indexSeconds = (Date.now() - indexStarted) / 1000;
  // What the projection keeps up to date per new conversation (the migration's backfill statement).
  await db.query(`INSERT INTO conversations.account_totals (account_id, conversations)
                  SELECT account_id, count(*) FROM conversations.conversations GROUP BY account_id`);
  await db.query('VACUUM (ANALYZE) conversations.conversations');
  await db.query('VACUUM (ANALYZE) conversations.conversation_search');
  await db.query('VACUUM (ANALYZE) conversations.conversation_topics');
  const size = (await db.query(`SELECT pg_size_pretty(pg_total_relation_size('conversations.conversations')) AS total,
                                       pg_size_pretty(pg_relation_size('conversations.conversations')) AS heap`)).rows[0];

  // ---- measure ----
  const handler = new ListConversationsHandler({ dataSource, tuning: { deepPageOffset: 10_000 } });
  const time = async (fn) => {
    for (let i = 0; i < 2; i++) await fn();
    const samples = [];
    let result;
    for (let i = 0; i < RUNS; i++) {
      const t0 = process.hrtime.bigint();
      result = await fn();
      samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    samples.sort((a, b) => a - b);
    return { median: samples[Math.floor(samples.length / 2)], p90: samples[Math.ceil(samples.length * 0.9) - 1], result };
  };
  const results = [];
  const baseline = async (name, sql, params) => {
    const { median, p90 } = await time(() => db.query(sql, params));
    results.push({ group: 'baseline', name, median, p90, total: '' });
    log(`${name}: ${median.toFixed(2)} ms`);
  };
  const list = async (name, query) => {
    const { median, p90, result } = await time(() => handler.execute(new ListConversations(ACCOUNT, query)));
    results.push({ group: 'list', name, query, median, p90, total: result.total });
    log(`${name}: ${median.toFixed(2)} ms (total ${result.total})`);
  };

  await baseline('raw count(*) of the account', `SELECT count(*) FROM conversations.conversations WHERE account_id = $1`, [ACCOUNT]);
  await baseline('raw keyset read of 25 by start_time (one index)', `SELECT id, start_time FROM conversations.conversations WHERE account_id = $1 ORDER BY start_time DESC, id DESC LIMIT 25`, [ACCOUNT]);
  await baseline('raw primary-key lookup', `SELECT id FROM conversations.conversations WHERE id = $1`, ['bench-big-00500000']);

  const someCaller = '+14155550042';
  await list('default (page 1, newest first)', {});
  await list('page 2', { page: '2' });
  await list('deep page 1,000 (offset 24,975)', { page: '1000' });
  await list('last page (offset ~1M)', { page: String(Math.ceil(ROWS / 25)) });
  await list('per_page 100', { per_page: '100' });
  await list('agent_id', { agent_id: 'agt_bench_7' });
  await list('status=failed', { status: 'failed' });
  await list('sentiment=negative', { sentiment: 'negative' });
  await list('outcome=appointment_booked', { outcome: 'appointment_booked' });
  await list('caller (E.164)', { caller: someCaller });
  await list('min_duration=800', { min_duration: '800' });
  await list('duration 100..120', { min_duration: '100', max_duration: '120' });
  await list('one day (start_date..end_date)', { start_date: '2024-06-01', end_date: '2024-06-01' });
  await list('one month', { start_date: '2024-06-01', end_date: '2024-06-30' });
  await list('has_recording=true', { has_recording: 'true' });
  await list('has_transcript=false', { has_transcript: 'false' });
  await list('topic=internet', { topic: 'Internet' });
  await list('topic + status', { topic: 'billing', status: 'completed' });
  await list('search selective ("order #123456")', { search: 'order #123456' });
  await list('search broad ("refund", ~20%)', { search: 'refund' });
  await list('search broad + agent', { search: 'refund', agent_id: 'agt_bench_7' });
  await list('search no match ("zebra crossing")', { search: 'zebra crossing' });
  await list('search 2 chars ("ok", no trigram)', { search: 'ok' });
  await list('search literal % ("50% off")', { search: '50% off' });
  await list('sort duration desc', { sort_by: 'duration' });
  await list('sort duration asc, page 500', { sort_by: 'duration', sort_order: 'asc', page: '500' });
  await list('sort sentiment asc', { sort_by: 'sentiment', sort_order: 'asc' });
  await list('sort sentiment desc', { sort_by: 'sentiment', sort_order: 'desc' });
  await list('combined: completed + positive + agent + month', { status: 'completed', sentiment: 'positive', agent_id: 'agt_bench_3', start_date: '2024-03-01', end_date: '2024-03-31' });
  await list('combined: search + status, sort duration', { search: 'invoice', status: 'completed', sort_by: 'duration' });

  // ---- plans ----
  const { buildListSql } = await import(dist('apps/conversations-service/dist/list-conversations/list-conversations.sql.js'));
  const { parseListQuery } = await import(dist('apps/conversations-service/dist/list-conversations/list-conversations.params.js'));
  const plans = [];
  for (const [name, query] of [
    ['default', {}], ['status=failed', { status: 'failed' }], ['search selective', { search: 'order #123456' }],
    ['search broad', { search: 'refund' }], ['search broad + status', { search: 'invoice', status: 'completed' }], ['topic', { topic: 'internet' }],
    ['sort sentiment desc', { sort_by: 'sentiment', sort_order: 'desc' }],
    ['last page', { page: String(Math.ceil(ROWS / 25)) }],
  ]) {
    const f = parseListQuery(query).filter;
    const { where, params, orderBy } = buildListSql(ACCOUNT, f);
    const pagePlan = (await db.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT c.id FROM conversations.conversations c WHERE ${where} ORDER BY ${orderBy} LIMIT ${f.per_page} OFFSET ${(f.page - 1) * f.per_page}`, params)).rows.map((r) => r['QUERY PLAN']);
    // The count the handler really runs: kept total, side-table count, or the filtered count.
    const { topicOnly, searchOnly, unfiltered } = buildListSql(ACCOUNT, f);
    const [countSql, countParams] = topicOnly !== undefined
      ? ['SELECT count(*) FROM conversations.conversation_topics WHERE account_id = $1 AND topic = $2', [ACCOUNT, topicOnly]]
      : searchOnly !== undefined
        ? [`SELECT count(*) FROM conversations.conversation_search WHERE account_id = $1 AND search_text LIKE $2 ESCAPE '\\'`, [ACCOUNT, searchOnly]]
        : unfiltered
          ? ['SELECT conversations FROM conversations.account_totals WHERE account_id = $1', [ACCOUNT]]
          : [`SELECT count(*) FROM conversations.conversations c WHERE ${where}`, params];
    const countPlan = (await db.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${countSql}`, countParams)).rows.map((r) => r['QUERY PLAN']);
    plans.push({ name, pagePlan, countPlan });
  }
  // ---- report ----
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${os.platform()} ${os.release()}, Node ${process.version}, PostgreSQL ${pgVersion}`;
  const fmt = (n) => n.toFixed(2);
  const nodeLines = (lines) => lines.filter((l) => /Scan|Sort|Limit|Aggregate|Bitmap|Gather|Heap Fetches|Heap Blocks|Execution Time|Rows Removed|Join|JIT|Timing/.test(l)).map((l) => l.replace(/\s+$/, ''));
  const md = `# Benchmarks

## Conversation list at ${ROWS.toLocaleString('en-US')} conversations in one account

Command: \`npm run build && npm run bench\` (env: \`BENCH_ROWS\`, \`BENCH_RUNS\`, \`BENCH_DATABASE_URL\`, \`BENCH_KEEP=1\` keeps the database).
Run on ${new Date().toISOString()}: ${machine}.

What it does: a fresh database gets the conversations-service schema from its own migrations; ${ROWS.toLocaleString('en-US')} read-model rows
for one account plus ${OTHER_ROWS.toLocaleString('en-US')} for another are loaded with multi-row \`INSERT … SELECT\` (indexes dropped during the
load and re-created from the migration's own definitions), then \`VACUUM ANALYZE\`. Each case runs the real \`ListConversationsHandler\`
(parameter parsing, page query + exact \`count(*)\` in parallel, agent-name join) ${RUNS} times after 2 warm-ups; times are wall-clock
in milliseconds, without the NATS/HTTP hop. Baselines are raw single-index reads in the same run on the same data.

Load: ${loadSeconds.toFixed(0)} s for the rows, ${indexSeconds.toFixed(0)} s for the ${indexDefs.length} secondary indexes (side tables filled in between). Table size: ${size.total} (heap ${size.heap}).

| case | median ms | p90 ms | total matches |
|---|---:|---:|---:|
${results.map((r) => `| ${r.group === 'baseline' ? `_baseline:_ ${r.name}` : `${r.name} \`${new URLSearchParams(r.query).toString() || '(no parameters)'}\``} | ${fmt(r.median)} | ${fmt(r.p90)} | ${r.total === '' ? '' : r.total.toLocaleString('en-US')} |`).join('\n')}

## Plans (EXPLAIN ANALYZE, page query and count)

${plans.map((p) => `### ${p.name}\n\npage:\n\`\`\`\n${nodeLines(p.pagePlan).join('\n')}\n\`\`\`\ncount:\n\`\`\`\n${nodeLines(p.countPlan).join('\n')}\n\`\`\``).join('\n\n')}
`;
  writeFileSync(join(root, 'BENCHMARKS.md'), md + (process.env.BENCH_NOTES ? `\n${process.env.BENCH_NOTES}\n` : ''));
  log('wrote BENCHMARKS.md');
} catch (err) {
  console.error('[bench] failed:', err);
  process.exitCode = 1;
} finally {
  await db?.end().catch(() => undefined);
  await dataSource?.destroy().catch(() => undefined);
  if (!keep) await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
  else log(`kept database ${dbName}`);
  await admin.end();
}
