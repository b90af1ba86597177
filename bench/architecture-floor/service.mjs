// The floor's service: answers the floor gateway's requests (one NATS queue group, as every service subscribes)
// with the same statements the bench's raw baseline sends, through a `pg` pool, the rows stringified once.
// No validation, tenant check, read routing, agent names, mapping to the interface's shape or RPC envelope.
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { coalesceWrites } from '../../libs/service-kit/dist/bus/write-coalescing.js';

const nc = await connect({ servers: process.env.NATS_URL });
coalesceWrites(nc);
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
/** name → { page, count, params }: the list shapes, as the raw baseline sends them. */
const shapes = JSON.parse(process.env.FLOOR_SHAPES);
const agent = JSON.parse(process.env.FLOOR_AGENT);
const prefix = process.env.FLOOR_SUBJECT;
const failed = (msg) => () => msg.respond('{"error":"floor query failed"}');

nc.subscribe(`${prefix}.list`, {
  queue: 'floor',
  callback: (_, msg) => {
    const shape = shapes[new URL(msg.string(), 'http://floor').searchParams.get('shape')];
    Promise.all([pool.query(shape.page, shape.params), pool.query(shape.count, shape.params)]).then(
      ([page, count]) => msg.respond(JSON.stringify({ data: page.rows, meta: { total: Number(count.rows[0].count) } })),
      failed(msg),
    );
  },
});
nc.subscribe(`${prefix}.agent`, {
  queue: 'floor',
  callback: (_, msg) => {
    pool.query(agent.sql, agent.params).then((r) => msg.respond(JSON.stringify({ data: r.rows[0] })), failed(msg));
  },
});

// ---- ingest: call events from the stream into an event table and a read model, one transaction per batch ----
// The least an event-sourced design does per event: append it to its stream (the version after the stream's last,
// de-duplicated by id) and fold it into the conversation's read-model row; each batch's events of a conversation are
// folded in memory first, so a row is written once per batch. Tables: an event table with the event store's
// columns and constraints, and a copy of the read model's table with all its indexes (the raw baseline's table).

async function consumeCallEvents(stream, accountId) {
  const { jetstream, jetstreamManager, AckPolicy } = await import('@nats-io/jetstream');
  await pool.query(`CREATE SCHEMA IF NOT EXISTS floor;
    CREATE TABLE floor.conversations (LIKE conversations.conversations INCLUDING ALL);
    CREATE TABLE floor.events (
      global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
      stream_id text NOT NULL, stream_version integer NOT NULL, event_id text NOT NULL, type text NOT NULL, data jsonb NOT NULL,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb, created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (stream_id, stream_version), UNIQUE (event_id));
    CREATE INDEX ON floor.events (transaction_id, global_position)`);
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: stream, subjects: [`${prefix}.events`], storage: 'file', duplicate_window: 120_000_000_000 });
  await jsm.consumers.add(stream, { durable_name: 'floor', ack_policy: AckPolicy.Explicit, max_ack_pending: 10_000 });
  const consumer = await jetstream(nc).consumers.get(stream, 'floor');
  let running = true;
  stopIngest = async () => {
    running = false;
    await jsm.streams.delete(stream).catch(() => undefined);
  };
  const loop = async () => {
    while (running) {
      const batch = [];
      for await (const m of await consumer.fetch({ max_messages: 500, expires: 1_000 })) batch.push(m);
      if (batch.length === 0) continue;
      const events = batch.map((m) => m.json());
      // Two batches that append to the same stream at once: the later commit meets the version the earlier took and
      // is tried again, as an event store's optimistic append is.
      for (let attempt = 1; ; attempt++) {
        try {
          await store(accountId, events);
          break;
        } catch (err) {
          if (err.code !== '23505' || attempt === 10) throw err;
        }
      }
      for (const m of batch) m.ack();
    }
  };
  // Two batches in flight, as the projection keeps several: one waits on the database while the next is fetched.
  Promise.all([loop(), loop()]).catch((err) => {
    if (!running) return; // the stream deleted under a fetch at shutdown
    process.stderr.write(`floor ingest: ${err.stack}\n`);
    process.exit(1);
  });
}

const SENTIMENT_RANK = { negative: 0, neutral: 1, positive: 2 };

/** The batch's events folded per conversation: one read-model row each (columns the events name; the rest default). */
function foldRows(accountId, events) {
  const rows = new Map();
  for (const e of events) {
    const d = e.data ?? {};
    const row = rows.get(e.conversation_id) ?? {
      id: e.conversation_id, account_id: accountId, agent_id: e.agent_id, status: 'in_progress', start_time: e.occurred_at, detail: {}, stream_version: 0,
      search_text: '', duration: 0, topics: [], topics_lower: [], has_recording: false, has_transcript: false,
    };
    row.stream_version += 1;
    if (d.start_time) row.start_time = d.start_time;
    if (d.caller_number) row.caller_number = d.caller_number;
    if (d.duration !== undefined) row.duration = d.duration;
    if (d.sentiment) { row.sentiment = d.sentiment; row.sentiment_rank = SENTIMENT_RANK[d.sentiment]; }
    if (d.topics) { row.topics = d.topics; row.topics_lower = d.topics.map((t) => t.toLowerCase()); }
    if (d.outcome) row.outcome = d.outcome;
    if (d.summary) { row.summary = d.summary; row.search_text += ` ${d.summary.toLowerCase()}`; }
    if (d.recording_url) row.has_recording = true;
    if (d.segments) { row.has_transcript = true; row.detail = { segments: d.segments }; row.search_text += ` ${d.segments.map((s) => s.text).join(' ').toLowerCase()}`; }
    if (e.type === 'call.ended') { row.status = d.status ?? 'completed'; row.end_time = e.occurred_at; }
    rows.set(e.conversation_id, row);
  }
  return [...rows.values()];
}

const COLUMNS = ['id', 'account_id', 'agent_id', 'status', 'start_time', 'detail', 'stream_version', 'search_text', 'caller_number', 'end_time', 'duration',
  'sentiment', 'sentiment_rank', 'outcome', 'topics', 'topics_lower', 'summary', 'has_recording', 'has_transcript'].join(', ');
/** A later batch's row keeps what earlier batches set unless its events set it again. */
const MERGE = [
  ...['caller_number', 'end_time', 'sentiment', 'sentiment_rank', 'outcome', 'summary'].map((c) => `${c} = COALESCE(EXCLUDED.${c}, r.${c})`),
  `duration = CASE WHEN EXCLUDED.duration > 0 THEN EXCLUDED.duration ELSE r.duration END`,
  ...['topics', 'topics_lower'].map((c) => `${c} = CASE WHEN cardinality(EXCLUDED.${c}) > 0 THEN EXCLUDED.${c} ELSE r.${c} END`),
  ...['has_recording', 'has_transcript'].map((c) => `${c} = r.${c} OR EXCLUDED.${c}`),
].join(', ');

async function store(accountId, events) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // Appended after each stream's last version; an event already stored (a redelivery) is skipped.
    await client.query(
      `WITH e AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id text, conversation_id text, type text, data jsonb, n int)),
            last AS (SELECT s.stream_id, (SELECT max(stream_version) FROM floor.events v WHERE v.stream_id = s.stream_id) AS version
                       FROM (SELECT DISTINCT conversation_id AS stream_id FROM e) s)
       INSERT INTO floor.events (stream_id, stream_version, event_id, type, data)
       SELECT e.conversation_id, coalesce(last.version, 0) + row_number() OVER (PARTITION BY e.conversation_id ORDER BY e.n), e.id, e.type, e.data
         FROM e JOIN last ON last.stream_id = e.conversation_id
       ON CONFLICT (event_id) DO NOTHING`,
      [JSON.stringify(events.map((e, n) => ({ ...e, n })))],
    );
    await client.query(
      `INSERT INTO floor.conversations AS r (${COLUMNS}) SELECT ${COLUMNS} FROM json_populate_recordset(null::floor.conversations, $1)
       ON CONFLICT (account_id, id) DO UPDATE SET status = CASE WHEN EXCLUDED.status = 'in_progress' THEN r.status ELSE EXCLUDED.status END,
         start_time = least(r.start_time, EXCLUDED.start_time), stream_version = r.stream_version + EXCLUDED.stream_version,
         detail = r.detail || EXCLUDED.detail, search_text = r.search_text || EXCLUDED.search_text, updated_at = now(), ${MERGE}`,
      [JSON.stringify(foldRows(accountId, events))],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

let stopIngest = async () => undefined;
if (process.env.FLOOR_INGEST_STREAM) await consumeCallEvents(process.env.FLOOR_INGEST_STREAM, process.env.FLOOR_ACCOUNT);
await nc.flush();
process.stdout.write('listening\n');
process.on('SIGTERM', () => stopIngest().then(() => pool.end()).then(() => nc.close()).then(() => process.exit(0)));
