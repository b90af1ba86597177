import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlatformASimulator } from './platform-a/platform-a-simulator.js';
import { PlatformBSimulator } from './platform-b/platform-b-simulator.js';
import { byteRange, RECORDING_SAMPLE_RATE, renderCall, resample, wavFile, type RecordingScript } from './recordings/call-audio.js';
import { send } from './spec-support.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

/** The fields of a RIFF/WAVE header a player reads, parsed independently of the writer. */
function parseWav(file: Buffer) {
  expect(file.toString('ascii', 0, 4)).toBe('RIFF');
  expect(file.toString('ascii', 8, 12)).toBe('WAVE');
  const sampleRate = file.readUInt32LE(24);
  const bitsPerSample = file.readUInt16LE(34);
  const channels = file.readUInt16LE(22);
  const dataBytes = file.readUInt32LE(40);
  return { sampleRate, bitsPerSample, channels, dataBytes, durationMs: (dataBytes / (sampleRate * channels * (bitsPerSample / 8))) * 1000 };
}

/** Mean absolute amplitude of the samples between two times (ms). */
function loudness(file: Buffer, fromMs: number, toMs: number): number {
  const samples = new Int16Array(file.buffer.slice(file.byteOffset + 44, file.byteOffset + file.length));
  const from = Math.floor((fromMs / 1000) * RECORDING_SAMPLE_RATE);
  const to = Math.floor((toMs / 1000) * RECORDING_SAMPLE_RATE);
  let sum = 0;
  for (let i = from; i < to; i += 1) sum += Math.abs(samples[i]);
  return sum / Math.max(1, to - from);
}

describe('call audio', () => {
  it('byte ranges as an <audio> element asks for them', () => {
    expect(byteRange(undefined, 100)).toBeUndefined();
    expect(byteRange('bytes=0-', 100)).toEqual({ start: 0, end: 99 });
    expect(byteRange('bytes=10-19', 100)).toEqual({ start: 10, end: 19 });
    expect(byteRange('bytes=90-500', 100)).toEqual({ start: 90, end: 99 });
    expect(byteRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(byteRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(byteRange('bytes=0-1,5-6', 100)).toBeUndefined();
  });

  it('each turn is heard from its start in the transcript, silence between turns and until the hang-up', async () => {
    const script: RecordingScript = {
      turns: [
        { role: 'agent', text: 'one', startMs: 500, endMs: 1_500 },
        { role: 'user', text: 'two', startMs: 3_000, endMs: 4_000 },
      ],
      durationMs: 6_000,
      voices: { agent: 'a', user: 'b' },
    };
    // A tone for as long as the turn's slot at the normal rate: what a synthesiser that speaks in time would give.
    const tone = async (_text: string, _voice: string) => ({ samples: new Int16Array(22_050).fill(8_000), sampleRate: 22_050 });
    const file = wavFile(await renderCall(script, tone));
    expect(parseWav(file)).toMatchObject({ sampleRate: RECORDING_SAMPLE_RATE, bitsPerSample: 16, channels: 1 });
    expect(parseWav(file).durationMs).toBeCloseTo(6_000, -1);
    expect(loudness(file, 0, 450)).toBe(0);
    expect(loudness(file, 550, 1_450)).toBeGreaterThan(7_000);
    expect(loudness(file, 1_600, 2_900)).toBe(0);
    expect(loudness(file, 3_050, 3_950)).toBeGreaterThan(7_000);
    expect(loudness(file, 4_100, 6_000)).toBe(0);
    expect(resample({ samples: new Int16Array([2, 4, 6, 8]), sampleRate: 22_050 })).toEqual(new Int16Array([3, 7]));
  });
});

describe('recordings of simulated calls (eSpeak NG)', () => {
  let platformA: PlatformASimulator;
  let platformB: PlatformBSimulator;
  let receiver: WebhookReceiver;
  const directory = mkdtempSync(join(tmpdir(), 'sim-recordings-'));

  beforeAll(async () => {
    platformA = await PlatformASimulator.start({ recordingsDir: directory });
    platformB = await PlatformBSimulator.start();
  });
  afterAll(async () => {
    await Promise.all([platformA.stop(), platformB.stop()]);
    rmSync(directory, { recursive: true, force: true });
  });
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(() => receiver.stop());

  const turns = [
    { role: 'agent' as const, text: 'Harbor Dental, how can I help?', startMs: 300, endMs: 2_300 },
    { role: 'user' as const, text: 'I would like to book a cleaning.', startMs: 3_000, endMs: 5_000 },
  ];

  it('a live call: each webhook when it happens, the analysis after the hang-up; its recording is speech where the transcript says, served with ranges', async () => {
    const agent = (await send(platformA.url, 'POST', '/v2/agents', { body: { agent_name: 'Front desk', webhook_url: receiver.url } })).body;
    const begun = platformA.beginCall({ agentId: agent.agent_id, turns, durationMs: 5_600, live: true, analysisDelayMs: 1_000 });
    const startedAt = Date.now();
    expect(begun.recordingUrl).toBe(`${platformA.url}/recordings/${begun.callId}.wav`);
    const placed = await begun.settled;
    expect(placed.deliveries.map((d) => d.type)).toEqual(['call_started', 'transcript_updated', 'transcript_updated', 'call_ended', 'call_analyzed']);
    const at = receiver.received.map((webhook) => webhook.receivedAt - startedAt);
    // Generous: a busy machine is late, never early.
    expect(at[0]).toBeLessThan(1_000);
    expect(at[1]).toBeGreaterThanOrEqual(2_300 - 50);
    expect(at[2]).toBeGreaterThanOrEqual(5_000 - 50);
    expect(at[3]).toBeGreaterThanOrEqual(5_600 - 50);
    expect(at[4]).toBeGreaterThanOrEqual(6_600 - 50);
    expect((receiver.received[3].body as { call: { recording_url: string } }).call.recording_url).toBe(begun.recordingUrl);

    const synthesisStarted = performance.now();
    const whole = await fetch(begun.recordingUrl!);
    const synthesisMs = performance.now() - synthesisStarted;
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('audio/wav');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    const file = Buffer.from(await whole.arrayBuffer());
    expect(parseWav(file).durationMs).toBeCloseTo(5_600, -1);
    expect(loudness(file, 300, 2_300)).toBeGreaterThan(200);
    expect(loudness(file, 3_000, 5_000)).toBeGreaterThan(200);
    expect(loudness(file, 0, 250)).toBe(0);
    expect(loudness(file, 5_050, 5_600)).toBe(0);
    process.stdout.write(`synthesis of a ${5.6} s recording: ${Math.round(synthesisMs)} ms\n`);

    const part = await fetch(begun.recordingUrl!, { headers: { range: 'bytes=44-1043' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 44-1043/${file.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(file.subarray(44, 1044));
    expect((await fetch(begun.recordingUrl!, { headers: { range: `bytes=${file.length}-` } })).status).toBe(416);
    // Made once, kept with its script on disk.
    expect(readdirSync(directory).sort()).toEqual([`${begun.callId}.json`, `${begun.callId}.wav`]);
  }, 60_000);

  it('a script registered through the control API (the demo history) is synthesised on its first request; an unknown one is 404', async () => {
    const registered = await send(platformB.url, 'PUT', '/__sim/recordings/demo-42', { body: { turns, durationMs: 5_500 }, key: null });
    expect(registered).toMatchObject({ status: 200, body: { url: `${platformB.url}/recordings/demo-42.wav` } });
    const answer = await fetch(`${platformB.url}/recordings/demo-42.wav`);
    expect(answer.status).toBe(200);
    expect(parseWav(Buffer.from(await answer.arrayBuffer())).durationMs).toBeCloseTo(5_500, -1);
    expect((await fetch(`${platformB.url}/recordings/nothing.wav`)).status).toBe(404);
    // Prepared ahead while the synthesiser is idle: the first request finds it made.
    platformB.recordings.register('demo-43', { turns, durationMs: 5_200 });
    platformB.recordings.prepare('demo-43');
    for (const deadline = Date.now() + 30_000; !(platformB.recordings.lastTiming?.audioMs === 5_200) && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    expect(platformB.recordings.lastTiming?.audioMs).toBe(5_200);
    const refused = await send(platformB.url, 'PUT', '/__sim/recordings/bad', { body: { turns: [{ role: 'agent', text: 'late', startMs: 9_000, endMs: 9_500 }], durationMs: 5_000 }, key: null });
    expect(refused.status).toBe(400);
  }, 60_000);

  it('a live call through the control API is answered at once (202) and delivered as it unfolds', async () => {
    const assistant = (await send(platformB.url, 'POST', '/assistant', { body: { name: 'Billing', server: { url: receiver.url } } })).body;
    const answered = await send(platformB.url, 'POST', '/__sim/calls', { body: { agentId: assistant.id, turns, durationMs: 5_600, live: true }, key: null });
    expect(answered).toMatchObject({ status: 202, body: { platform: 'platform_b', callId: expect.any(String), recordingUrl: expect.stringContaining('/recordings/') } });
    expect(receiver.received.length).toBeLessThan(4);
    const report = () => receiver.received.some((webhook) => (webhook.body as { message: { type: string } }).message.type === 'end-of-call-report');
    for (const deadline = Date.now() + 30_000; !report() && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
    expect(report()).toBe(true);
  }, 40_000);
});
