// One HTTP server for bench/http-adapters.bench.mjs: `raw` (node:http), `express` or `fastify` (a Nest app
// on that adapter), answering GET /v1/ping with the same JSON page. Prints `listening <port>` when ready.
import 'reflect-metadata';
import { createServer } from 'node:http';

const kind = process.argv[2];
// A page shaped like a conversation list page: 25 items and the envelope's meta.
const PAGE = {
  data: Array.from({ length: 25 }, (_, i) => ({
    id: `call-${i}`, agent_id: 'agt_1', agent_name: 'Front desk', caller_number: '+14155550101', status: 'completed',
    start_time: '2026-11-20T10:00:00.000Z', end_time: '2026-11-20T10:03:00.000Z', duration: 180, sentiment: 'positive',
    outcome: 'resolved', topics: ['billing', 'invoice'], has_recording: true, has_transcript: true,
    summary: 'Caller reported a duplicate charge; refund issued.',
  })),
  meta: { total: 20000, page: 1, per_page: 25, total_pages: 800 },
};

if (kind === 'raw') {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/v1/ping') {
      const body = JSON.stringify(PAGE);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    } else {
      res.writeHead(404).end();
    }
  });
  server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
} else {
  const { Controller, Get, Module } = await import('@nestjs/common');
  const { NestFactory } = await import('@nestjs/core');
  class PingController {
    ping() {
      return PAGE;
    }
  }
  Controller('v1')(PingController);
  Get('ping')(PingController.prototype, 'ping', Object.getOwnPropertyDescriptor(PingController.prototype, 'ping'));
  class AppModule {}
  Module({ controllers: [PingController] })(AppModule);
  const adapter = kind === 'fastify' ? new (await import('@nestjs/platform-fastify')).FastifyAdapter() : undefined;
  const app = await NestFactory.create(AppModule, adapter, { logger: false });
  await app.listen(0, '127.0.0.1');
  console.log(`listening ${new URL(await app.getUrl()).port}`);
}
