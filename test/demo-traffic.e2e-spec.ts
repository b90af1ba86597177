import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, interrupt, launch, untilReady, type Launch } from './support/launcher.js';

/**
 * The living demo, as a newcomer meets it after `npm start`: calls keep arriving through the platform simulators'
 * signed webhooks, each unfolding in real time (listed as soon as it starts, its transcript growing as it is
 * said, ended, then analysed), with a recording a player can load and seek. A high rate so the test sees many.
 */
interface Observed {
  firstSeenAt: number;
  /** Transcript lengths seen while the call was in progress. */
  liveSegments: Set<number>;
  final?: any;
}

/** The fields of a WAV header a player reads, parsed here independently of the simulators' writer. */
function wavDuration(file: Buffer): { sampleRate: number; seconds: number } {
  expect(file.toString('ascii', 0, 4)).toBe('RIFF');
  expect(file.toString('ascii', 8, 12)).toBe('WAVE');
  const channels = file.readUInt16LE(22);
  const sampleRate = file.readUInt32LE(24);
  const bitsPerSample = file.readUInt16LE(34);
  expect(file.toString('ascii', 36, 40)).toBe('data');
  return { sampleRate, seconds: file.readUInt32LE(40) / (sampleRate * channels * (bitsPerSample / 8)) };
}

describe('demo traffic under npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'voice-demo-traffic-'));
  // The embedded PostgreSQL (run as `postgres` when we are root) must enter it.
  chmodSync(dataDir, 0o755);
  let running: Launch | undefined;
  let url: string;
  let apiKey: string;
  let pgPort: number;
  const env = () => ({ DATA_DIR: dataDir, PORT: '0', EMBEDDED_PG_PORT: String(pgPort), PLATFORM_A_SIMULATOR_PORT: '0', PLATFORM_B_SIMULATOR_PORT: '0' });
  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: any; meta: any });
  };

  beforeAll(async () => {
    pgPort = await freePort();
    // A call every second or two.
    running = launch({ ...env(), DEMO_CALLS_PER_MINUTE: '40' });
    ({ url, apiKey } = await untilReady(running));
  }, 120_000);
  afterAll(async () => {
    await interrupt(running);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('calls appear within 5 s of their first webhook, their transcripts grow while they go on, they end with their analysis and a recording that plays and seeks', async () => {
    expect(running!.stdout()).toMatch(/traffic: {3}a demo call every ~2 s through the simulators \(DEMO_TRAFFIC=false to stop, DEMO_CALLS_PER_MINUTE\)/);
    const seeded = new Set<string>((await get('/v1/conversations?per_page=100&status=completed')).data.map((c: { id: string }) => c.id));
    const observed = new Map<string, Observed>();
    // A call that was seen growing while in progress, then completed with its analysis.
    let watched: { id: string; observation: Observed } | undefined;
    for (const deadline = Date.now() + 150_000; Date.now() < deadline && !watched; ) {
      const { data } = await get('/v1/conversations?per_page=10');
      const now = Date.now();
      for (const call of data) {
        if (!seeded.has(call.id) && !observed.has(call.id)) observed.set(call.id, { firstSeenAt: now, liveSegments: new Set() });
      }
      // The detail of a few calls still worth watching: in progress, or ended and waiting for their analysis.
      const watching = [...observed].filter(([, observation]) => !observation.final).slice(0, 6);
      for (const [id, observation] of watching) {
        const { data: detail } = await get(`/v1/conversations/${id}`);
        if (detail.status === 'in_progress') observation.liveSegments.add(detail.content.transcript.length);
        else if (detail.status !== 'completed') observation.final = detail;
        else if (detail.summary !== null && detail.content.recording_url !== null) {
          observation.final = detail;
          if ([...observation.liveSegments].filter((n) => n > 0).length >= 2) watched = { id, observation };
        }
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(watched).toBeDefined();
    const { id, observation } = watched!;

    // Listed within 5 s of the first webhook the service received for it (its delivery log's time).
    const deliveries = (await get(`/v1/webhook-deliveries?per_page=100&conversation_id=${encodeURIComponent(id)}`)).data;
    expect(deliveries.length).toBeGreaterThan(0);
    const firstWebhookAt = Math.min(...deliveries.map((d: { received_at: string }) => Date.parse(d.received_at)));
    expect(observation.firstSeenAt - firstWebhookAt).toBeLessThanOrEqual(5_000);

    // The transcript grew while the call went on and is whole at the end, its analysis matching it.
    const final = observation.final;
    const grown = [...observation.liveSegments].sort((a, b) => a - b);
    expect(grown.at(-1)).toBeLessThanOrEqual(final.content.transcript.length);
    expect(final.duration).toBeGreaterThan(0);
    expect(final.outcome).toEqual(expect.any(String));
    expect(final.topics.length).toBeGreaterThan(0);
    const said = final.content.transcript.map((segment: { text: string }) => segment.text).join(' ');
    const named = /^([A-Z][a-z]+) /.exec(final.summary)?.[1];
    if (named && named !== 'The') expect(said).toContain(named);

    // The recording: the simulator's own URL (not a placeholder), a WAV as long as the call, read in ranges.
    const recordingUrl: string = final.content.recording_url;
    expect(recordingUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/recordings\/.+\.wav$/);
    const whole = await fetch(recordingUrl, { signal: AbortSignal.timeout(60_000) });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('audio/wav');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    const file = Buffer.from(await whole.arrayBuffer());
    const { seconds } = wavDuration(file);
    expect(seconds).toBeGreaterThan(0);
    expect(Math.abs(seconds - final.duration)).toBeLessThanOrEqual(1.5);
    const middle = Math.floor(file.length / 2);
    const part = await fetch(recordingUrl, { headers: { range: `bytes=${middle}-${middle + 999}` }, signal: AbortSignal.timeout(10_000) });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes ${middle}-${middle + 999}/${file.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(file.subarray(middle, middle + 1000));
  }, 240_000);

  it('a seeded call from the history has a recording too, synthesised when first asked for', async () => {
    let seededCall: { id: string } | undefined;
    for (let page = 1; page <= 10 && !seededCall; page += 1) {
      const { data } = await get(`/v1/conversations?per_page=100&status=completed&page=${page}`);
      seededCall = data.find((call: { id: string; has_recording: boolean }) => call.id.startsWith('demo-') && call.has_recording);
    }
    expect(seededCall).toBeDefined();
    const { data: detail } = await get(`/v1/conversations/${seededCall!.id}`);
    const answer = await fetch(detail.content.recording_url, { signal: AbortSignal.timeout(60_000) });
    expect(answer.status).toBe(200);
    expect(Math.abs(wavDuration(Buffer.from(await answer.arrayBuffer())).seconds - detail.duration)).toBeLessThanOrEqual(1.5);
  }, 90_000);

  it('Ctrl-C ends the calls still going on as failed (demo_interrupted); with DEMO_TRAFFIC=false a restart places no call', async () => {
    // At this rate a few calls are always going on.
    expect((await get('/v1/conversations?status=in_progress')).meta.total).toBeGreaterThan(0);
    expect(await interrupt(running)).toBe(0);
    running = launch({ ...env(), DEMO_TRAFFIC: 'false' });
    ({ url, apiKey } = await untilReady(running));
    expect(running.stdout()).not.toContain('traffic:');
    expect((await get('/v1/conversations?status=in_progress')).meta.total).toBe(0);
    const failed = (await get('/v1/conversations?status=failed&per_page=10')).data;
    const reasons = await Promise.all(failed.map(async (call: { id: string }) => (await get(`/v1/conversations/${call.id}`)).data.failure_reason));
    expect(reasons).toContain('demo_interrupted');
    const before = (await get('/v1/conversations?per_page=1')).meta.total;
    await new Promise((r) => setTimeout(r, 8_000));
    expect((await get('/v1/conversations?per_page=1')).meta.total).toBe(before);
  }, 150_000);

  it('at its cap the demo goes on: the agents keep calls as many days as the oldest is old, the retention sweep erases older ones, the total stays at the cap', async () => {
    const cap = (await get('/v1/conversations?per_page=1')).meta.total;
    const [oldest] = (await get('/v1/conversations?per_page=1&sort_by=start_time&sort_order=asc')).data;
    const ageDays = Math.floor((Date.now() - Date.parse(oldest.start_time)) / 86_400_000);
    expect(ageDays).toBeGreaterThanOrEqual(1);
    await interrupt(running);
    running = launch({ ...env(), DEMO_CALLS_PER_MINUTE: '40', DEMO_CALL_CAP: String(cap), RETENTION_SWEEP_INTERVAL_MS: '1000' });
    ({ url, apiKey } = await untilReady(running));
    const placedIds = new Set<string>();
    for (const deadline = Date.now() + 60_000; ; ) {
      const { data, meta } = await get('/v1/conversations?per_page=20');
      // Calls in flight when the cap was reached may be over it for a moment; nothing more.
      expect(meta.total).toBeLessThanOrEqual(cap + 3);
      for (const call of data) if (!call.id.startsWith('demo-') && Date.parse(call.start_time) > Date.now() - 60_000) placedIds.add(call.id);
      const erased = (await fetch(`${url}/v1/conversations/${encodeURIComponent(oldest.id)}`, { headers: { authorization: `Bearer ${apiKey}` } })).status === 404;
      if (erased && placedIds.size >= 2) break;
      if (Date.now() > deadline) throw new Error(`after 60 s: oldest erased ${erased}, calls placed ${placedIds.size}; ${running!.stderr().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const { data: agents } = await get('/v1/agents?per_page=100');
    expect(new Set(agents.map((agent: { retention: { conversations_days: number | null } }) => agent.retention.conversations_days))).toEqual(new Set([ageDays]));
    expect(running.stderr()).toContain(`its agents now keep calls ${ageDays} days, and the retention sweep erases the older ones`);
  }, 150_000);

  it('a rate that is not a number is refused in one line before anything starts', async () => {
    await interrupt(running);
    const refused = launch({ ...env(), DEMO_CALLS_PER_MINUTE: 'fast' });
    expect(await refused.exited).toBe(1);
    expect(refused.stderr()).toContain('DEMO_CALLS_PER_MINUTE must be a number above 0 and at most 600, got "fast"');
    expect(refused.stderr()).not.toContain('embedded PostgreSQL listening');
  }, 60_000);
});
