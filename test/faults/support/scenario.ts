/**
 * One scenario: a fresh account and agents, thousands of generated call events ingested (paced, so the
 * fault lands mid-ingest and ingest goes on after it), a fault injected by the caller once a share of the
 * events is acknowledged, then the check. Returns the table row.
 */
import { randomBytes } from 'node:crypto';
import { generateCalls, type SimulatedCall } from '@voice/call-generator';
import type { FaultCluster, FaultAccount, NatsDeployment } from './cluster.js';
import { checkCalls, recoveryMs, StoredSampler, type FaultWindow, type ScenarioRow } from './check.js';
import { ingestOverHttp, ingestOverJetStream, Ledger } from './ingest.js';

export interface ScenarioOptions {
  scenario: string;
  /** http: POST /v1/call-events; jetstream: straight onto CALL_EVENTS; both: half the calls each way. */
  via: 'http' | 'jetstream' | 'both';
  calls?: number;
  eventsPerSecond?: number;
  /** Injects the fault(s) — typically after `ackedAtLeast(ledger, n)` — and says when each began and ended. */
  fault: (ctx: { ledger: Ledger; account: FaultAccount; totalEvents: number }) => Promise<FaultWindow[]>;
  /** Anything else to run during ingest (e.g. agent churn for the relay scenario). */
  alongside?: (ctx: { account: FaultAccount }) => Promise<void>;
  account?: FaultAccount;
  /** The clients' history, when the caller reads more of it than the row shows (e.g. the slowest answer). */
  ledger?: Ledger;
}

export async function runScenario(cluster: FaultCluster<NatsDeployment>, options: ScenarioOptions): Promise<ScenarioRow & { calls: SimulatedCall[] }> {
  const account = options.account ?? (await cluster.createAccount(2));
  const calls = generateCalls({
    count: options.calls ?? 1_200,
    seed: Math.floor(Math.random() * 1e9),
    agentIds: account.agentIds,
    idPrefix: `f${randomBytes(3).toString('hex')}`,
  });
  const ledger = options.ledger ?? new Ledger();
  const sampler = new StoredSampler(cluster, account.id);
  const rate = options.eventsPerSecond ?? 1_000;
  const httpCalls = options.via === 'jetstream' ? [] : options.via === 'http' ? calls : calls.filter((_, i) => i % 2 === 0);
  const jsCalls = options.via === 'http' ? [] : options.via === 'jetstream' ? calls : calls.filter((_, i) => i % 2 === 1);
  const share = (n: number) => Math.round((rate * n) / calls.length);
  const ingest = Promise.all([
    httpCalls.length && ingestOverHttp(cluster.baseUrl, account.apiKey, httpCalls.flatMap((c) => c.events), ledger, { eventsPerSecond: share(httpCalls.length) }),
    jsCalls.length &&
      ingestOverJetStream(cluster.nats.url, cluster.namespace, account.id, jsCalls.flatMap((c) => c.events), ledger, { eventsPerSecond: share(jsCalls.length) }),
  ]);
  const totalEvents = calls.reduce((n, c) => n + c.events.length, 0);
  try {
    const [faults] = await Promise.all([options.fault({ ledger, account, totalEvents }), ingest, options.alongside?.({ account })]);
    const ingestEndedAt = Date.now();
    const checked = await checkCalls(cluster, account, calls, ledger, ingestEndedAt);
    return { scenario: options.scenario, via: options.via, ...checked, recovery_ms: recoveryMs(faults, ledger, sampler), calls };
  } catch (err) {
    ledger.aborted = true;
    // What the processes said is most of the diagnosis.
    console.log(`${options.scenario} failed; process logs (warnings and errors):\n${cluster.logTail()}`);
    throw err;
  } finally {
    await sampler.stop();
  }
}
