/**
 * kill -9 of agents-service while 200 agent creates are in flight, restarted 1 s later. Agent writes wait for
 * the platform sync (RPC_TIMEOUT_MS + 10 s at most), but their handler reports progress, so the gateway tells
 * the dead service from a slow one: every answer, during the outage too, comes within 6 s. The clients behave
 * as the API asks (each create has its Idempotency-Key and is retried on 503 / 409 idempotency_key_in_use /
 * 429 / connection errors until it gets a final answer), and afterwards the account is exact: one agent per
 * 201, no duplicate name, exactly the quota's worth of agents, and quota_exceeded reporting that number.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiClient, type ApiClient, type ApiResponse } from '../support/http.js';
import { FaultCluster, sleep } from './support/cluster.js';

const CREATES = 200;
/** The fault cluster's accounts' agent_limit, below CREATES: the quota is contended too, and must end exactly full. */
const AGENT_LIMIT = 100;
const ANSWER_WITHIN_MS = 6_000;
/** Each platform call answers this late, so a create spends seconds in its sync, reporting progress. */
const PLATFORM_DELAY_MS = 1_000;
/** The kill lands with creates on the wire, in their transaction and in their platform sync. */
const KILL_AFTER_MS = 1_500;
/** Write limits are per key (burst 100): three keys let all 200 creates start at once. */
const KEYS = 3;

interface Attempt {
  status: number | 'network';
  ms: number;
  code?: string;
}

interface Outcome {
  name: string;
  attempts: Attempt[];
  final: ApiResponse;
}

/** Which way the gateway told the outage: the service went silent mid-request, never answered, or was not there. */
function outageKind(res: ApiResponse): string {
  const message: string = res.body?.error?.message ?? '';
  if (message.includes('stopped reporting progress')) return 'went silent';
  if (message.includes('did not answer within')) return 'no answer';
  return res.body?.error?.code ?? 'other';
}

describe('fault: kill -9 of agents-service during 200 concurrent agent creates', () => {
  let cluster: FaultCluster;

  beforeAll(async () => {
    cluster = await FaultCluster.standard('faultwrites');
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it('every answer within 6 s, then one agent per 201, no duplicate name, quota exact', async () => {
    // The cluster's accounts allow 100 agents.
    const account = await cluster.createAccount(0);
    const clients: ApiClient[] = [account.api];
    for (let i = 1; i < KEYS; i += 1) {
      const key = await account.api.post('/v1/api-keys', { name: `writer ${i}`, scopes: ['agents:read', 'agents:write'] });
      expect(key.status).toBe(201);
      clients.push(apiClient(cluster.baseUrl, key.body.data.api_key));
    }

    let giveUpAt = Date.now() + 120_000;
    const createUntilFinal = async (i: number): Promise<Outcome> => {
      const name = `Kill desk ${i}`;
      const headers = { 'Idempotency-Key': `kill-create-${i}` };
      const attempts: Attempt[] = [];
      for (;;) {
        const started = Date.now();
        let res: ApiResponse | undefined;
        try {
          res = await clients[i % KEYS].post('/v1/agents', { name, voice_platform: 'platform_a' }, headers);
          attempts.push({ status: res.status, ms: Date.now() - started, code: res.status === 503 ? outageKind(res) : res.body?.error?.code });
        } catch {
          attempts.push({ status: 'network', ms: Date.now() - started });
        }
        const retry = !res || res.status === 503 || res.status === 429 || (res.status === 409 && res.body?.error?.code === 'idempotency_key_in_use');
        if (res && !retry) return { name, attempts, final: res };
        if (Date.now() > giveUpAt) throw new Error(`create ${i} never got a final answer: ${JSON.stringify(attempts)}`);
        const retryAfterS = Number(res?.headers.get('retry-after') ?? 0);
        await sleep(Math.max(250, retryAfterS * 1_000) + Math.random() * 250);
      }
    };

    // A slow platform keeps the creates in the service's hands (their inline sync) when the kill lands.
    cluster.platforms.simulators.platformA.faults.delay(PLATFORM_DELAY_MS);
    const startedAt = Date.now();
    const creates = Promise.all(Array.from({ length: CREATES }, (_, i) => createUntilFinal(i)));
    await sleep(KILL_AFTER_MS);
    const killedAt = Date.now();
    await cluster.kill9('agents');
    await sleep(1_000);
    await cluster.restart('agents');
    const restartedAt = Date.now();
    cluster.platforms.simulators.platformA.faults.clear('delay');
    let outcomes: Outcome[];
    try {
      outcomes = await creates;
    } catch (err) {
      console.log(`creates failed; process logs (warnings and errors):\n${cluster.logTail()}`);
      throw err;
    } finally {
      giveUpAt = 0;
    }

    const attempts = outcomes.flatMap((o) => o.attempts);
    const latencies = attempts.map((a) => a.ms).sort((a, b) => a - b);
    const byStatus = attempts.reduce<Record<string, number>>((n, a) => ({ ...n, [`${a.status}${a.code ? ` ${a.code}` : ''}`]: (n[`${a.status}${a.code ? ` ${a.code}` : ''}`] ?? 0) + 1 }), {});
    const firstAnswers = outcomes.map((o) => o.attempts[0]);
    console.log(
      [
        `kill -9 agents-service ${killedAt - startedAt} ms into ${CREATES} concurrent creates (restarted ${restartedAt - killedAt} ms after the kill)`,
        `answers: ${attempts.length} (${JSON.stringify(byStatus)})`,
        `latency: max ${latencies.at(-1)} ms, p99 ${latencies[Math.floor(latencies.length * 0.99)]} ms, median ${latencies[Math.floor(latencies.length / 2)]} ms`,
        `first answers: ${firstAnswers.filter((a) => a.status === 201).length} × 201, ${firstAnswers.filter((a) => a.status === 503).length} × 503, max ${Math.max(...firstAnswers.map((a) => a.ms))} ms`,
        `total: ${Date.now() - startedAt} ms`,
      ].join('\n'),
    );

    // The kill did land on requests in flight.
    expect(attempts.some((a) => a.status === 503)).toBe(true);
    // Every answer — before, during and after the outage — within 6 s.
    expect(latencies.at(-1)!).toBeLessThanOrEqual(ANSWER_WITHIN_MS);
    expect(attempts.filter((a) => a.status === 'network')).toEqual([]);

    // Final answers: a 201, or quota_exceeded once the quota is full; nothing else.
    const created = outcomes.filter((o) => o.final.status === 201);
    const refused = outcomes.filter((o) => o.final.status !== 201);
    expect(refused.map((o) => o.final.body?.error?.code).filter((code) => code !== 'quota_exceeded')).toEqual([]);
    expect(created.length).toBe(AGENT_LIMIT);

    // One agent per 201, under the name it was created with, each name once.
    const createdIds = new Set(created.map((o) => o.final.body.data.id as string));
    expect(createdIds.size).toBe(created.length);
    const { rows } = await cluster.db.query<{ id: string; name: string }>(
      `SELECT id, name FROM agents.agents WHERE account_id = $1 AND status <> 'deleted'`,
      [account.id],
    );
    expect(new Set(rows.map((r) => r.id))).toEqual(createdIds);
    expect(new Set(rows.map((r) => r.name.toLowerCase())).size).toBe(rows.length);
    expect(new Set(rows.map((r) => r.name))).toEqual(new Set(created.map((o) => o.name)));
    const listed = await account.api.get('/v1/agents?per_page=1');
    expect(listed.status).toBe(200);
    expect(listed.body.meta.total).toBe(AGENT_LIMIT);

    // The quota counts exactly the agents there are: the next create is refused with current = the limit.
    const over = await account.api.post('/v1/agents', { name: 'One too many', voice_platform: 'platform_a' });
    expect(over.status).toBe(403);
    expect(over.body.error).toMatchObject({ code: 'quota_exceeded', limit: AGENT_LIMIT, current: AGENT_LIMIT });
  }, 240_000);
});
