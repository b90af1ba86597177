#!/usr/bin/env node
// `npm run bench:erasure [-- --quick]` — an erasure request for one caller with 10,000 conversations in an account of
// 1,000,000 (quick: 1,000 in 100,000), worked through by the service's own DataRequestsWorker (transactions of 500
// conversations, each under the conversations' locks, with tombstones, counts, totals and the notice outbox) on a
// database loaded straight with set-based INSERTs (schema from the service's migrations, secondary indexes built after
// the load, as bench:list does). Beside it, in the same run and on the same data: the raw set-based DELETE of the
// same number of conversations from the same tables in one transaction (no locks, tombstones or counts). Writes its
// figures into bench/results/erasure.md (full runs only; BENCHMARKS.md's summary row is updated by hand). Needs `npm run build` and a PostgreSQL (BENCH_DATABASE_URL).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { freshDatabase, importBuilt, percentiles, root, writeBenchmarkSection } from './support.mjs';

const quick = process.argv.includes('--quick');
const ROWS = Number(process.env.BENCH_ROWS ?? (quick ? 100_000 : 1_000_000));
const CALLER_ROWS = Number(process.env.BENCH_CALLER_ROWS ?? (quick ? 1_000 : 10_000));
const TARGET_S = 60;
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ACCOUNT = 'acc_bench_erasure';
const CALLER = '+14155550142';
const BASELINE_CALLER = '+14155550143';
const log = (m) => process.stderr.write(`[bench:erasure] ${m}\n`);
if (!existsSync(join(root, 'apps/conversations-service/dist/data-requests/data-requests.worker.js'))) {
  console.error('bench: build first (npm run build)');
  process.exit(1);
}
const { kit, databaseModule, worker: workerModule, store, context, counts, recording } = await importBuilt({
  recording: 'apps/conversations-service/dist/record-call-events/record-call-events.handler.js',
  kit: 'libs/service-kit/dist/index.js',
  databaseModule: 'apps/conversations-service/dist/database/conversations-database.js',
  worker: 'apps/conversations-service/dist/data-requests/data-requests.worker.js',
  store: 'apps/conversations-service/dist/data-requests/data-requests.store.js',
  context: 'apps/conversations-service/dist/config/service-context.js',
  counts: 'apps/conversations-service/dist/conversation/conversation-counts.js',
});

// n-th conversation of the account: the first CALLER_ROWS are the caller's (then as many of the baseline's caller),
// every other one is one of 50,000 other callers. Three events each for the callers' conversations, one otherwise.
const CONVERSATIONS_SQL = `
INSERT INTO conversations.conversations (id, account_id, agent_id, caller_number, status, start_time, end_time, duration, sentiment, sentiment_rank,
  outcome, topics, topics_lower, has_recording, has_transcript, summary, search_text, detail, stream_version, voice_platform, created_at, updated_at)
SELECT 'call-' || lpad(n::text, 8, '0'), $1, 'agt_bench_' || (n % 20),
       CASE WHEN n <= $4 THEN $5 WHEN n <= 2 * $4 THEN $6 ELSE '+1212555' || lpad((n % 50000)::text, 4, '0') END,
       'completed', ts, ts + interval '3 minutes', 180, 'positive', 2, 'resolved', ARRAY['billing'], ARRAY['billing'], true, true,
       'Refund issued for order #' || n, 'refund issued for order #' || n || E'\\ncaller: I was charged twice',
       jsonb_build_object('id', 'call-' || lpad(n::text, 8, '0'), 'status', 'completed', 'summary', 'Refund issued for order #' || n, 'recording_url', 'https://rec.example.com/' || n,
                          'transcript', jsonb_build_array(jsonb_build_object('speaker', 'caller', 'text', 'I was charged twice', 'start_ms', 0, 'end_ms', 2000))),
       CASE WHEN n <= 2 * $4 THEN 3 ELSE 1 END, 'platform_a', ts, ts
  FROM (SELECT n, timestamptz '2025-01-01' + (n % 525600) * interval '1 minute' AS ts FROM generate_series($2::int, $3::int) n) g`;
const EVENTS_SQL = `
INSERT INTO conversations.events (account_id, stream_id, stream_version, event_id, type, data, metadata)
SELECT $1, 'call-' || lpad(n::text, 8, '0'), v, 'evt-' || n || '-' || v, (ARRAY['call.started', 'call.transcript', 'call.ended'])[v],
       jsonb_build_object('id', 'evt-' || n || '-' || v, 'type', (ARRAY['call.started', 'call.transcript', 'call.ended'])[v], 'conversation_id', 'call-' || lpad(n::text, 8, '0'),
                          'agent_id', 'agt_bench_' || (n % 20), 'occurred_at', '2025-01-01T00:00:00Z', 'data', jsonb_build_object('caller_number', '+12125550000')),
       '{"voice_platform": "platform_a"}'
  FROM generate_series($2::int, $3::int) n, generate_series(1, CASE WHEN n <= 2 * $4 THEN 3 ELSE 1 END) v`;

const db = await freshDatabase(adminUrl, 'erasure');
let dataSource;
let client;
try {
  dataSource = await kit.openDatabase({ url: db.url, schema: databaseModule.CONVERSATIONS_SCHEMA, migrations: databaseModule.conversationsMigrations, poolSize: 4 });
  client = new pg.Client({ connectionString: db.url });
  await client.connect();

  // ---- load ----
  const { rows: indexDefs } = await client.query(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'conversations'
        AND tablename IN ('conversations', 'conversation_search', 'conversation_topics', 'events') AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key'
      ORDER BY tablename, indexname`,
  );
  for (const { indexname } of indexDefs) await client.query(`DROP INDEX conversations.${indexname}`);
  await client.query(`INSERT INTO conversations.agents (agent_id, account_id, name, voice_platform, recording_enabled, transcription_enabled, status, version)
                      SELECT 'agt_bench_' || i, $1, 'Bench agent ' || i, 'platform_a', true, true, 'active', 1 FROM generate_series(0, 19) i`, [ACCOUNT]);
  const loadStarted = Date.now();
  for (let from = 1; from <= ROWS; from += 100_000) {
    const to = Math.min(ROWS, from + 99_999);
    await client.query(CONVERSATIONS_SQL, [ACCOUNT, from, to, CALLER_ROWS, CALLER, BASELINE_CALLER]);
    await client.query(EVENTS_SQL, [ACCOUNT, from, to, CALLER_ROWS]);
    log(`loaded ${to.toLocaleString()} / ${ROWS.toLocaleString()} conversations`);
  }
  await client.query(`INSERT INTO conversations.conversation_search (id, account_id, search_text, start_time, status, agent_id)
                      SELECT id, account_id, search_text, start_time, status, agent_id FROM conversations.conversations`);
  await client.query(`INSERT INTO conversations.conversation_topics (account_id, topic, conversation_id, start_time, status, agent_id)
                      SELECT DISTINCT c.account_id, t, c.id, c.start_time, c.status, c.agent_id FROM conversations.conversations c, unnest(c.topics_lower) AS t`);
  await client.query(`SET maintenance_work_mem = '512MB'`);
  // A partitioned table's index reads `ON ONLY` (the parent alone); it is to be built on every partition.
  for (const { indexdef } of indexDefs) await client.query(indexdef.replace(' ON ONLY ', ' ON '));
  await client.query(`INSERT INTO conversations.account_totals (account_id, conversations) SELECT account_id, count(*) FROM conversations.conversations GROUP BY account_id`);
  // The load's inserts left each row's change in the outbox; the relay would have published and deleted them within
  // seconds of each write, so the live outbox holds almost nothing (an erasure deletes its conversations' rows there).
  await client.query('TRUNCATE conversations.conversation_changes');
  await client.query(`INSERT INTO conversations.conversation_counts (account_id, facet, value, conversations) ${counts.FACET_COUNTS_SQL}`);
  for (const t of ['conversations', 'conversation_search', 'conversation_topics', 'events', 'account_totals', 'conversation_counts']) await client.query(`VACUUM (ANALYZE) conversations.${t}`);
  const loadS = (Date.now() - loadStarted) / 1000;
  log(`loaded and indexed in ${loadS.toFixed(0)} s`);

  // ---- ingest beside it: batches of 50 new calls recorded through the service's own path, one after another ----
  let ingestSeq = 0;
  const ingestBatch = async () => {
    const events = Array.from({ length: 50 }, () => {
      const n = ++ingestSeq;
      const at = new Date(Date.parse('2026-01-01T00:00:00Z') + n * 1000).toISOString();
      return { id: `ingest-${n}`, type: 'call.started', conversation_id: `ingest-call-${n}`, agent_id: `agt_bench_${n % 20}`, occurred_at: at, data: { caller_number: '+13125550100', start_time: at } };
    });
    const t = performance.now();
    await recording.recordCallEvents(dataSource, events);
    return performance.now() - t;
  };
  const ingestFor = async (until) => {
    const samples = [];
    while (!until()) samples.push(await ingestBatch());
    return samples;
  };
  const alone = await ingestFor(((end) => () => Date.now() > end)(Date.now() + 3_000));

  // ---- the service: an erasure request worked through by DataRequestsWorker ----
  const logger = kit.createLogger('bench-erasure');
  const ctx = { dataSource, logger, reads: kit.ReadRouter.primaryOnly(dataSource, 'conversations', logger), tuning: { ...context.DEFAULT_TUNING, dataRequestPollMs: 10 } };
  const worker = new workerModule.DataRequestsWorker(ctx, { nudge() {} }, { nudge() {} });
  const request = await store.insertDataRequest(dataSource, ACCOUNT, { type: 'erasure', caller_number: CALLER });
  const started = Date.now();
  worker.start();
  let row;
  let erasing = true;
  const beside = ingestFor(() => !erasing);
  for (;;) {
    ({ rows: [row] } = await client.query('SELECT status, conversations_found, conversations_done FROM conversations.data_requests WHERE id = $1', [request.id]));
    if (row.status === 'completed' || row.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const serviceS = (Date.now() - started) / 1000;
  erasing = false;
  const during = await beside;
  await worker.stop();
  const left = (await client.query('SELECT count(*)::int AS n FROM conversations.conversations WHERE account_id = $1 AND caller_number = $2', [ACCOUNT, CALLER])).rows[0].n;
  const tombstones = (await client.query('SELECT count(*)::int AS n FROM conversations.erased_conversations')).rows[0].n;
  if (row.status !== 'completed' || left !== 0 || tombstones !== CALLER_ROWS) throw new Error(`erasure incomplete: ${JSON.stringify({ ...row, left, tombstones })}`);
  const ingested = (await client.query(`SELECT count(*)::int AS n FROM conversations.conversations WHERE account_id = $1 AND caller_number = '+13125550100'`, [ACCOUNT])).rows[0].n;
  if (ingested !== ingestSeq) throw new Error(`ingest beside the erasure recorded ${ingested} of ${ingestSeq} calls`);

  // ---- raw baseline: the same number of conversations (the other caller's) deleted set-based in one transaction ----
  const rawStarted = Date.now();
  await client.query('BEGIN');
  const { rows: ids } = await client.query('SELECT id FROM conversations.conversations WHERE account_id = $1 AND caller_number = $2', [ACCOUNT, BASELINE_CALLER]);
  const idList = ids.map((r) => r.id);
  for (const [table, column] of [['conversations', 'id'], ['conversation_search', 'id'], ['conversation_topics', 'conversation_id'], ['events', 'stream_id']]) {
    await client.query(`DELETE FROM conversations.${table} WHERE account_id = $1 AND ${column} = ANY($2::text[])`, [ACCOUNT, idList]);
  }
  await client.query('COMMIT');
  const rawS = (Date.now() - rawStarted) / 1000;

  const line =
    `Erasure of one caller's ${CALLER_ROWS.toLocaleString('en-US')} conversations in an account of ${ROWS.toLocaleString('en-US')} ` +
    `(${new Date().toISOString().slice(0, 10)}): **${serviceS.toFixed(1)} s** through the service's request worker (${Math.ceil(CALLER_ROWS / 500)} transactions of 500: locks, ` +
    `tombstones, events, read model, side tables, counts, totals, outbox) against **${rawS.toFixed(1)} s** for the raw set-based DELETE of as many ` +
    `conversations from the same four tables in one transaction (${(serviceS / rawS).toFixed(1)}×); target ≤ ${TARGET_S} s: ${serviceS <= TARGET_S ? 'met' : 'missed'}. ` +
    `Ingest beside it (batches of 50 new calls recorded one after another through the service's recording path): p50 ` +
    `${percentiles(during).p50.toFixed(0)} ms, p99 ${percentiles(during).p99.toFixed(0)} ms per batch (${during.length} batches) against ` +
    `${percentiles(alone).p50.toFixed(0)} / ${percentiles(alone).p99.toFixed(0)} ms alone just before. ` +
    `Load: ${loadS.toFixed(0)} s (set-based INSERTs, indexes after).`;
  console.log(line);
  if (!quick) writeBenchmarkSection('erasure', line, 'bench/results/erasure.md');
} finally {
  await client?.end().catch(() => undefined);
  await dataSource?.destroy().catch(() => undefined);
  await db.drop();
}
