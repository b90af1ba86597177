/**
 * The Jepsen-style check after a fault: the clients' history (sent, acknowledged) against what the system
 * stored (conversations.events, the record of truth) and what it shows (GET /v1/conversations totals, pages and
 * every conversation's detail), plus the read model against a rebuild from the event store.
 *   lost        acknowledged but not stored (or a conversation with acknowledged events not listed)
 *   duplicated  stored or listed more than once
 *   unexpected  stored or listed but never sent (un-acknowledged but sent may or may not be stored: not counted)
 */
import { appendFileSync } from 'node:fs';
import type { SimulatedCall } from '@voice/call-generator';
import { rebuildConversationsProjection } from '../../../apps/conversations-service/src/rebuild-projection/rebuild-projection.js';
import { sleep, type FaultCluster, type FaultAccount, type NatsDeployment } from './cluster.js';
import type { Ledger } from './ingest.js';

export interface ScenarioRow {
  scenario: string;
  via: string;
  sent: number;
  acked: number;
  stored: number;
  lost: number;
  duplicated: number;
  unexpected: number;
  /** Conversations listed (GET /v1/conversations meta.total) / expected. */
  listed: string;
  /** Conversations whose detail disagrees with the events sent (status, agent, or 404). */
  detail_bad: number;
  /** Read model vs its rebuild from the event store. */
  rebuild: string;
  /** From the fault until the system acknowledged and stored new events again (the worst of a scenario's faults). */
  recovery_ms: number | string;
  /** From the end of ingest until every acknowledged event was stored. */
  converge_ms: number;
  client_retries: string;
}

/** Samples how many events the account has stored, to tell when storing resumed after a fault. */
export class StoredSampler {
  private readonly samples: Array<[number, number]> = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(private readonly cluster: FaultCluster<NatsDeployment>, private readonly accountId: string) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const { rows } = await this.cluster.db.query('SELECT count(*)::int AS n FROM conversations.events WHERE account_id = $1', [this.accountId]);
        this.samples.push([Date.now(), rows[0].n]);
      } catch {
        // the database is being faulted: no sample
      }
      await sleep(100);
    }
  }

  /** First time after `t` at which the count grew beyond its value at `t`. */
  firstGrowthAfter(t: number): number | undefined {
    const before = [...this.samples].reverse().find(([at]) => at <= t)?.[1] ?? 0;
    return this.samples.find(([at, n]) => at > t && n > before)?.[0];
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

export interface FaultWindow {
  at: number;
  restoredAt: number;
}

/** Recovery of each fault: until both an acknowledgement and a stored event came after it was over. */
export function recoveryMs(faults: FaultWindow[], ledger: Ledger, sampler: StoredSampler): number | string {
  if (faults.length === 0) return '-';
  let worst = 0;
  for (const f of faults) {
    const marks = [ledger.firstAckAfter(f.restoredAt), sampler.firstGrowthAfter(f.restoredAt)].filter((t): t is number => t !== undefined);
    worst = Math.max(worst, (marks.length ? Math.max(...marks) : f.restoredAt) - f.at);
  }
  return worst;
}

const STATUS_OF: Record<string, string> = { 'call.ended': 'completed', 'call.failed': 'failed', 'call.abandoned': 'abandoned' };
function expectedStatus(call: SimulatedCall): string {
  const last = call.events.filter((e) => e.type in STATUS_OF).at(-1);
  return last ? STATUS_OF[last.type] : 'in_progress';
}

async function storedEventCounts(cluster: FaultCluster<NatsDeployment>, accountId: string): Promise<Map<string, number>> {
  const { rows } = await cluster.db.query<{ event_id: string; n: number }>(
    'SELECT event_id, count(*)::int AS n FROM conversations.events WHERE account_id = $1 GROUP BY event_id',
    [accountId],
  );
  return new Map(rows.map((r) => [r.event_id, r.n]));
}

/** A GET as a well-behaved client makes it: retried on 5xx, connection errors and 429 (after Retry-After). */
async function getJson(account: FaultAccount, path: string): Promise<{ status: number; body: any }> {
  for (const deadline = Date.now() + 60_000; ; ) {
    const res = await account.api.get(path).catch(() => undefined);
    if (res && res.status < 500 && res.status !== 429) return res;
    if (Date.now() > deadline) throw new Error(`GET ${path}: ${res?.status ?? 'no answer'}`);
    const retryAfter = Number(res?.headers.get('retry-after'));
    await sleep(retryAfter > 0 ? Math.min(retryAfter * 1000, 5_000) : 250);
  }
}

/**
 * Waits until every acknowledged event is stored (or `timeoutMs`), then compares. `calls` are the calls the
 * clients sent (all of them: events never sent are not in them).
 */
export async function checkCalls(
  cluster: FaultCluster<NatsDeployment>,
  account: FaultAccount,
  calls: SimulatedCall[],
  ledger: Ledger,
  ingestEndedAt: number,
  timeoutMs = 90_000,
): Promise<Omit<ScenarioRow, 'scenario' | 'via' | 'recovery_ms'>> {
  let stored = await storedEventCounts(cluster, account.id);
  for (const deadline = Date.now() + timeoutMs; [...ledger.acked].some((id) => !stored.has(id)) && Date.now() < deadline; ) {
    await sleep(250);
    stored = await storedEventCounts(cluster, account.id);
  }
  const convergeMs = Date.now() - ingestEndedAt;
  // A little longer, so late redeliveries of un-acknowledged events are counted too.
  await sleep(1_000);
  stored = await storedEventCounts(cluster, account.id);

  const lostEvents = [...ledger.acked].filter((id) => !stored.has(id));
  const duplicatedEvents = [...stored.values()].reduce((sum, n) => sum + n - 1, 0);
  const unexpectedEvents = [...stored.keys()].filter((id) => !ledger.sent.has(id));

  // What the API lists and shows. Expected: every call with at least one acknowledged event.
  const sentCalls = new Map(calls.map((c) => [c.conversation_id, c]));
  const expected = calls.filter((c) => c.events.some((e) => ledger.acked.has(e.id)));
  const listed: string[] = [];
  let total = -1;
  for (let page = 1; ; page += 1) {
    const res = await getJson(account, `/v1/conversations?per_page=100&page=${page}&sort_by=start_time&sort_order=asc`);
    if (res.status !== 200) throw new Error(`list: ${res.status}`);
    total = res.body.meta.total;
    listed.push(...res.body.data.map((c: { id: string }) => c.id));
    if (page >= res.body.meta.total_pages) break;
  }
  const listedSet = new Set(listed);
  const lostCalls = expected.filter((c) => !listedSet.has(c.conversation_id)).length;
  const duplicatedCalls = listed.length - listedSet.size;
  const unexpectedCalls = [...listedSet].filter((id) => !sentCalls.has(id)).length;

  // Every expected conversation's detail; its status is checked where all its events were acknowledged.
  let detailBad = 0;
  const detailExamples: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < expected.length) {
      const call = expected[next++];
      const res = await getJson(account, `/v1/conversations/${encodeURIComponent(call.conversation_id)}`);
      const complete = call.events.every((e) => ledger.acked.has(e.id));
      if (res.status !== 200 || res.body.data.agent_id !== call.agent_id || (complete && res.body.data.status !== expectedStatus(call))) {
        detailBad += 1;
        if (detailExamples.length < 3) {
          detailExamples.push(`${call.conversation_id}: ${res.status} ${res.status === 200 ? `${res.body.data.agent_id}/${res.body.data.status}` : JSON.stringify(res.body).slice(0, 200)} (expected ${call.agent_id}/${expectedStatus(call)}, complete ${complete})`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  if (detailExamples.length) console.log(`conversation details that disagree with the events sent:\n${detailExamples.join('\n')}`);

  const rebuild = await rebuildConversationsProjection({ databaseUrl: cluster.db.url });
  const rebuildText = rebuild.identical ? 'identical' : `missing ${rebuild.missing} extra ${rebuild.extra} different ${rebuild.different}${rebuild.totals_identical ? '' : ' totals≠'}`;

  return {
    sent: ledger.sent.size,
    acked: ledger.acked.size,
    stored: stored.size,
    lost: lostEvents.length + lostCalls,
    duplicated: duplicatedEvents + duplicatedCalls,
    unexpected: unexpectedEvents.length + unexpectedCalls,
    listed: `${total}/${expected.length}`,
    detail_bad: detailBad + (total === expected.length ? 0 : Math.abs(total - expected.length)),
    rebuild: rebuildText,
    converge_ms: convergeMs,
    client_retries: `${ledger.retries} (${ledger.failureSummary()})`,
  };
}

/** The summary table, one row per scenario, for the console and for the combined table at the end of the run. */
export function formatTable(rows: ScenarioRow[]): string {
  const columns = ['scenario', 'via', 'sent', 'acked', 'stored', 'lost', 'duplicated', 'unexpected', 'listed', 'detail_bad', 'rebuild', 'recovery_ms', 'converge_ms', 'client_retries'] as const;
  const cells = rows.map((r) => columns.map((c) => String(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
  const line = (values: readonly string[]) => `| ${values.map((v, i) => v.padEnd(widths[i])).join(' | ')} |`;
  return [line(columns), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}

/** Print the rows (console.log, so jest shows them) and keep them for the combined table of the run. */
export function report(rows: ScenarioRow[]): void {
  console.log(`\n${formatTable(rows)}\n`);
  const file = process.env.FAULT_RESULTS_FILE;
  if (file) for (const row of rows) appendFileSync(file, `${JSON.stringify(row)}\n`);
}
