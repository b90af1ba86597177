import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DataSource } from 'typeorm';
import { AgentsRpc, ConversationsRpc, NotificationsRpc, type HealthReply } from '@voice/contracts';
import { Public } from '../auth/access.decorators.js';
import { success } from '../http/envelope.js';
import { requestIdOf } from '../http/gateway-request.js';
import { ApiEnvelope, ApiRoute } from '../openapi/route-docs.js';
import { ServiceClient } from '../rpc/service-client.js';
import { BUS_PROBE, DATA_SOURCE, type BusProbe } from '../tokens.js';
import type { Health } from './health.view.js';
import { SharedCheck } from './shared-check.js';

/** Each dependency gets this long; a health check must answer fast even when something hangs. */
const CHECK_TIMEOUT_MS = 1000;

/**
 * How long an answer is reused: health is polled by load balancers, orchestrators and monitors, often many at
 * once, and each fresh answer costs a round trip to PostgreSQL, NATS and both services. An outage shows within
 * a second; a recovery within a quarter of one, so a start-up wait (`npm start`) or a load balancer taking an
 * instance back is not held up by an old 503.
 */
const KEEP_HEALTHY_MS = 1000;
const KEEP_UNHEALTHY_MS = 250;

type Checks = Health['checks'];
type CheckResult = Checks['database'];
type ReadReplicas = NonNullable<Health['read_replicas']>;

const allOk = (checks: Checks): boolean => Object.values(checks).every((c) => c === 'ok');

async function check(probe: () => Promise<unknown>): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('health check timed out')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([probe(), expired]);
    return 'ok';
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}

/** One round's results: the checks, and the read replicas the services reported. */
interface HealthRound {
  checks: Checks;
  readReplicas: ReadReplicas;
}

@Controller('health')
export class HealthController {
  private readonly checks = new SharedCheck<HealthRound>(({ checks }) => (allOk(checks) ? KEEP_HEALTHY_MS : KEEP_UNHEALTHY_MS));

  constructor(
    @Inject(DATA_SOURCE) private readonly db: DataSource,
    @Inject(BUS_PROBE) private readonly busProbe: BusProbe,
    private readonly services: ServiceClient,
  ) {}

  @Get()
  @Public()
  @ApiRoute('Health', 'Health of the gateway and its dependencies', 'Checks the database, NATS and the three services (1 s each). No authentication.')
  @ApiEnvelope(200, 'Health', { description: 'Everything answers.' })
  @ApiEnvelope(503, 'Health', { description: 'At least one dependency does not answer; same shape.' })
  async health(@Req() req: FastifyRequest, @Res({ passthrough: true }) res: FastifyReply) {
    const { checks, readReplicas } = await this.checks.get(() => this.checkDependencies(requestIdOf(req)));
    const healthy = allOk(checks);
    res.status(healthy ? 200 : 503);
    const replicas = Object.keys(readReplicas).length > 0 ? { read_replicas: readReplicas } : {};
    return success<Health>(req, { status: healthy ? 'ok' : 'unavailable', checks, ...replicas });
  }

  /**
   * One round of checks, in parallel; the service calls carry the request id of the call that started it. A
   * service with a read replica reports its state and lag; a replica behind or down leaves the check ok (the
   * service reads from its primary meanwhile), and shows in `read_replicas`.
   */
  private async checkDependencies(requestId: string): Promise<HealthRound> {
    const rpc = (subject: string) => () => this.services.send(subject, {}, { requestId, timeoutMs: CHECK_TIMEOUT_MS });
    const readReplicas: ReadReplicas = {};
    const withReplica = (service: keyof ReadReplicas, subject: string) => async () => {
      const replica = ((await rpc(subject)()) as Partial<HealthReply> | undefined)?.read_replica;
      if (replica) readReplicas[service] = { state: replica.state, lag_ms: replica.lag_ms, lag_bytes: replica.lag_bytes, max_lag_ms: replica.max_lag_ms };
    };
    const [database, nats, agents_service, conversations_service, notifications_service] = await Promise.all([
      check(() => this.db.query('SELECT 1')),
      check(this.busProbe),
      check(withReplica('agents_service', AgentsRpc.health)),
      check(withReplica('conversations_service', ConversationsRpc.health)),
      check(rpc(NotificationsRpc.health)),
    ]);
    return { checks: { database, nats, agents_service, conversations_service, notifications_service }, readReplicas };
  }
}
