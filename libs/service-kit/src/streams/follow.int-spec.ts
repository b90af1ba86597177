import { describe, expect, it } from '@jest/globals';
import { eventually, STREAM_ADAPTERS, streamsUnderTest } from '../../../../test/support/streams.js';
import type { FollowedMessage } from './message-streams.js';

/** Followers (ephemeral ordered readers) and stream bounds: the same contract from JetStream and the in-process stand-in. */
describe.each(STREAM_ADAPTERS)('following a stream over %s', (_name, kind) => {
  const harness = streamsUnderTest(kind);
  const { nextStream } = harness;

  it('without a resume point sees only what is stored after it started, in order, on its subject only, with increasing sequences', async () => {
    const { stream, subject } = nextStream();
    await harness.streams.ensureStream(stream, [`${subject}.>`]);
    await harness.streams.publish(`${subject}.a`, { n: 0 }, 'before');
    const seen: FollowedMessage[] = [];
    const follower = await harness.streams.follow({ stream, subject: `${subject}.a` }, (m) => seen.push(m));
    for (let n = 1; n <= 20; n++) await harness.streams.publish(`${subject}.${n % 5 === 0 ? 'b' : 'a'}`, { n }, `m-${n}`);
    const expected = Array.from({ length: 20 }, (_, i) => i + 1).filter((n) => n % 5 !== 0);
    await eventually(() => expect(seen.map((m) => (m.data as { n: number }).n)).toEqual(expected));
    expect(seen.every((m) => m.subject === `${subject}.a`)).toBe(true);
    const sequences = seen.map((m) => m.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(new Set(sequences).size).toBe(sequences.length);
    await follower.stop();
  });

  it('resumes right after a sequence: nothing missed, nothing repeated, then goes on live', async () => {
    const { stream, subject } = nextStream();
    await harness.streams.ensureStream(stream, [`${subject}.>`]);
    for (let n = 1; n <= 5; n++) await harness.streams.publish(`${subject}.x`, { n }, `r-${n}`);
    const bounds = await harness.streams.bounds(stream);
    expect(bounds.last - bounds.first).toBe(4);
    const seen: FollowedMessage[] = [];
    const follower = await harness.streams.follow({ stream, subject: `${subject}.>`, afterSequence: bounds.first + 1 }, (m) => seen.push(m));
    await harness.streams.publish(`${subject}.x`, { n: 6 }, 'r-6');
    await eventually(() => expect(seen.map((m) => (m.data as { n: number }).n)).toEqual([3, 4, 5, 6]));
    expect(seen[0].sequence).toBe(bounds.first + 2);
    await follower.stop();
    await harness.streams.publish(`${subject}.x`, { n: 7 }, 'r-7');
    await new Promise((r) => setTimeout(r, 200));
    expect(seen).toHaveLength(4);
  });

  it('keeps at most maxMessages: the oldest go, and bounds say what is left and when the stream was created', async () => {
    const { stream, subject } = nextStream();
    await harness.streams.ensureStream(stream, [`${subject}.>`], { maxMessages: 3 });
    expect(await harness.streams.bounds(stream)).toMatchObject({ first: 1, last: 0, createdMs: expect.any(Number) });
    const { createdMs } = await harness.streams.bounds(stream);
    expect(Math.abs(createdMs - Date.now())).toBeLessThan(60_000);
    for (let n = 1; n <= 5; n++) await harness.streams.publish(`${subject}.x`, { n }, `k-${n}`);
    await eventually(async () => expect(await harness.streams.bounds(stream)).toMatchObject({ first: 3, last: 5 }));
  });
});
