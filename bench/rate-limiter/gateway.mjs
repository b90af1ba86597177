// One gateway in a process of its own for bench/rate-limiter.bench.mjs: argv = database URL, NATS URL,
// namespace, admin token, 'on' | 'off' (the rate limiter). Prints `listening <port>`.
import { importBuilt } from '../support.mjs';

const [databaseUrl, natsUrl, namespace, adminToken, limiter] = process.argv.slice(2);
const { app } = await importBuilt({ app: 'apps/api-gateway/dist/app.js' });
const gateway = await app.startGateway({
  port: 0,
  host: '127.0.0.1',
  databaseUrl,
  natsUrl,
  namespace,
  adminToken,
  // A plan whose budgets the load never reaches: the limiter runs on every request and refuses none, as for a paying customer.
  rateLimits: { enabled: limiter === 'on', plans: { bench: { reads: { per_second: 1_000_000, burst: 1_000_000 } } } },
});
console.log(`listening ${new URL(gateway.url).port}`);
process.on('SIGTERM', () => void gateway.close().finally(() => process.exit(0)));
