/**
 * A crash between the platform's 201 and our record of it: the real agents-service process (its built
 * main.js) is killed with SIGKILL while platform_a holds the agent it just created but has not answered yet.
 * The next process finds that agent by our id and finishes the sync: exactly one platform agent.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AgentsRpc, IntegrationsRpc, type AgentReply } from '@voice/contracts';
import { startSimulators, type RunningSimulators } from '@voice/platform-simulators';
import { NamespacedNatsClient, withoutProgress } from '@voice/service-kit';
import { createTestDatabase, deleteNamespaceStreams, randomNamespace, startBuiltProcess, testNatsUrl, type TestDatabase } from '@voice/testing';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstValueFrom, timeout } from 'rxjs';
import { newAccount } from '../testing/agents-harness.js';

const main = resolve(fileURLToPath(import.meta.url), '../../../dist/main.js');

describe('agents-service killed (SIGKILL) between the platform’s 201 and our commit', () => {
  const namespace = randomNamespace();
  const integrationsKey = randomBytes(32).toString('base64');
  let db: TestDatabase;
  let simulators: RunningSimulators;
  let client: NamespacedNatsClient;
  const processes: ChildProcess[] = [];

  /** Starts the built service and resolves once it serves (its "ready" log line). */
  async function startProcess(): Promise<ChildProcess> {
    const child = await startBuiltProcess(
      main,
      {
        DATABASE_URL: db.url,
        NATS_URL: testNatsUrl(),
        NATS_NAMESPACE: namespace,
        INTEGRATIONS_KEY: integrationsKey,
        ALLOW_PRIVATE_PLATFORM_URLS: 'true',
        PLATFORM_REQUEST_TIMEOUT_MS: '10000',
        // Longer than the platform's delayed answer below takes to arrive, so the process dies before answering.
        PLATFORM_SYNC_INLINE_MS: '3000',
        PLATFORM_SYNC_POLL_MS: '100',
      },
      'agents-service ready',
    );
    processes.push(child);
    return child;
  }

  const rpc = <T>(subject: string, payload: unknown, ms = 15_000) => firstValueFrom(client.send<T>(subject, payload).pipe(withoutProgress<T>(), timeout(ms)));

  beforeAll(async () => {
    db = await createTestDatabase('crash');
    simulators = await startSimulators({ apiKeys: ['crash-key'] });
    client = new NamespacedNatsClient(namespace, { servers: [testNatsUrl()] });
    await client.connect();
  });
  afterAll(async () => {
    for (const child of processes) if (child.exitCode === null) child.kill('SIGKILL');
    await client?.close();
    await simulators?.stop();
    await deleteNamespaceStreams(namespace).catch(() => undefined);
    await db?.drop();
  });

  it('leaves exactly one platform agent, found by our id after the restart, and the agent synced', async () => {
    const first = await startProcess();
    const account = newAccount();
    await rpc(IntegrationsRpc.configure, {
      account,
      platform: 'platform_a',
      body: { api_key: 'crash-key', webhook_secret: 'crash-webhook-secret', base_url: simulators.urls.platformA },
      public_url: 'http://127.0.0.1:3000',
    });
    const platform = simulators.platformA;
    // Every answer comes 2 s after the work is done: the agent exists on the platform before the 201 leaves.
    platform.faults.delay(2_000);
    const creating = rpc(AgentsRpc.create, { account, body: { name: 'Crash test', voice_platform: 'platform_a' } }, 5_000).catch((err: unknown) => err);
    for (const deadline = Date.now() + 20_000; platform.agents().length === 0; ) {
      if (Date.now() > deadline) throw new Error('the platform never got the agent');
      await new Promise((r) => setTimeout(r, 20));
    }
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    platform.faults.delay(0);
    const [orphan] = platform.agents();
    const agentId = orphan.metadata.external_id;
    expect(agentId).toMatch(/^agt_/);

    await startProcess();
    let reply: AgentReply | undefined;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      // Until the restarted process has subscribed, NATS has no one to hand the request to: asked again.
      reply = await rpc<AgentReply>(AgentsRpc.get, { account_id: account.id, agent_id: agentId }).catch((err: unknown) => {
        if (/no subscribers/i.test(err instanceof Error ? err.message : String(err))) return undefined;
        throw err;
      });
      if (reply?.agent.platform_sync.state === 'synced') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // The process died before answering: the client never got a reply.
    expect(await creating).not.toHaveProperty('agent');
    expect(reply!.agent.platform_sync).toMatchObject({ state: 'synced', platform_agent_id: orphan.agent_id });
    expect(platform.agents().filter((a) => a.metadata.external_id === agentId)).toHaveLength(1);
    expect(platform.requests().filter((r) => r.method === 'POST' && r.path === '/v2/agents')).toHaveLength(1);
    // The number was bought after the restart, for the one platform agent.
    expect(platform.phoneNumbers()).toEqual([{ phone_number: reply!.agent.phone_number, inbound_agent_id: orphan.agent_id, purchased: true }]);
  }, 90_000);
});
