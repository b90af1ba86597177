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
await nc.flush();
process.stdout.write('listening\n');
process.on('SIGTERM', () => pool.end().then(() => nc.close()).then(() => process.exit(0)));
