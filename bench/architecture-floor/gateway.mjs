// The floor's gateway: node:http, each request forwarded as one NATS request and the reply's bytes written back.
// No authentication, rate limiter, validation, envelope, request context or access log: what is left is the hop
// every request of the design pays (HTTP in, a message to a service, its reply, HTTP out).
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import http from 'node:http';
import { coalesceWrites } from '../../libs/service-kit/dist/bus/write-coalescing.js';

const nc = await connect({ servers: process.env.NATS_URL });
// The same write coalescing every NATS connection of the apps has: the floor gets the apps' best transport.
coalesceWrites(nc);
const prefix = process.env.FLOOR_SUBJECT;
const js = jetstream(nc);
/** Publishes in flight per request, as the gateway keeps them. */
const IN_FLIGHT = 64;

/** POST /events: a batch of call events, each published onto the stream with its id for de-duplication; 202 once all are stored. */
function acceptEvents(req, res) {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    try {
      const { events } = JSON.parse(Buffer.concat(chunks));
      let next = 0;
      await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, events.length) }, async () => {
        while (next < events.length) {
          const event = events[next++];
          await js.publish(`${prefix}.events`, JSON.stringify(event), { msgID: event.id });
        }
      }));
      res.writeHead(202, { 'content-length': 0 });
      res.end();
    } catch {
      res.writeHead(503);
      res.end();
    }
  });
}

const server = http.createServer((req, res) => {
  if (req.method === 'POST') return acceptEvents(req, res);
  const route = req.url.startsWith('/agent') ? 'agent' : 'list';
  nc.request(`${prefix}.${route}`, req.url, { timeout: 5_000 }).then(
    (reply) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': reply.data.length });
      res.end(reply.data);
    },
    () => {
      res.writeHead(503);
      res.end();
    },
  );
});
server.keepAliveTimeout = 10_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => nc.close().then(() => process.exit(0))));
