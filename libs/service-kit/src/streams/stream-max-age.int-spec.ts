import { describe, expect, it } from '@jest/globals';
import { jetstreamManager } from '@nats-io/jetstream';
import { eventually, streamsUnderTest } from '../../../../test/support/streams.js';
import { StreamUpdateRefused } from '../bus/jetstream.js';

const HOUR_MS = 3_600_000;
const NS_PER_MS = 1_000_000;

/** A stream's max age is the operator's to choose at start-up (CALL_EVENTS_MAX_AGE_MS), also for a stream created before. */
describe('the max age of an existing stream', () => {
  describe('over JetStream', () => {
    const harness = streamsUnderTest('jetstream');
    const maxAgeOf = async (stream: string) => (await (await jetstreamManager(harness.nc!)).streams.info(stream)).config.max_age;

    it('is left alone unless updateMaxAge asks; then it is changed, and changed again when asked for another', async () => {
      const { stream, subject } = harness.nextStream();
      await harness.streams.ensureStream(stream, [`${subject}.>`]);
      expect(await maxAgeOf(stream)).toBe(0);
      await harness.streams.ensureStream(stream, [`${subject}.>`], { maxAgeMs: HOUR_MS });
      expect(await maxAgeOf(stream)).toBe(0);
      await harness.streams.ensureStream(stream, [`${subject}.>`], { maxAgeMs: HOUR_MS, updateMaxAge: true });
      expect(await maxAgeOf(stream)).toBe(HOUR_MS * NS_PER_MS);
      await harness.streams.ensureStream(stream, [`${subject}.>`], { maxAgeMs: 2 * HOUR_MS, updateMaxAge: true });
      expect(await maxAgeOf(stream)).toBe(2 * HOUR_MS * NS_PER_MS);
    });

    it('a new stream gets it at once; a change the server refuses is StreamUpdateRefused, the stream still there', async () => {
      const { stream, subject } = harness.nextStream();
      await harness.streams.ensureStream(stream, [`${subject}.>`], { maxAgeMs: HOUR_MS, updateMaxAge: true });
      expect(await maxAgeOf(stream)).toBe(HOUR_MS * NS_PER_MS);
      await expect(harness.streams.ensureStream(stream, [`${subject}.>`], { maxAgeMs: -5, updateMaxAge: true })).rejects.toBeInstanceOf(StreamUpdateRefused);
      expect(await maxAgeOf(stream)).toBe(HOUR_MS * NS_PER_MS);
    });
  });

  describe('in process', () => {
    const harness = streamsUnderTest('in-process');

    it('drops what is older than the new max age', async () => {
      const { stream, subject } = harness.nextStream();
      await harness.streams.ensureStream(stream, [`${subject}.>`]);
      await harness.streams.publish(`${subject}.a`, { n: 1 }, 'old-1');
      expect(await harness.streams.bounds(stream)).toMatchObject({ first: 1, last: 1 });
      await harness.streams.ensureStream(stream, [`${subject}.>`], { maxAgeMs: 50, updateMaxAge: true });
      await eventually(async () => expect(await harness.streams.bounds(stream)).toMatchObject({ first: 2, last: 1 }));
    });
  });
});
