import { describe, expect, it } from '@jest/globals';
import { expiryReason, fixedWait, lateReplyDeadline, progressWait, replyDeadline, PROGRESS_SILENCE_MS } from './reply-wait.rules.js';

const started = 1_000_000;

describe('replyDeadline', () => {
  it('a plain request: one bound, progress signals or not', () => {
    const wait = fixedWait(5_000);
    expect(replyDeadline(wait, started)).toBe(started + 5_000);
    expect(replyDeadline(wait, started, started + 4_900)).toBe(started + 5_000);
    expect(expiryReason(wait, started, started + 4_900)).toBe('no_answer');
  });

  it('a reporting request waits the base RPC timeout for its first signal', () => {
    const wait = progressWait(2_000, 12_000);
    expect(replyDeadline(wait, started)).toBe(started + 2_000);
    expect(expiryReason(wait, started)).toBe('no_answer');
  });

  it('each progress signal moves the deadline to that signal plus the silence allowance', () => {
    const wait = progressWait(2_000, 12_000);
    expect(replyDeadline(wait, started, started + 1_000)).toBe(started + 1_000 + PROGRESS_SILENCE_MS);
    expect(replyDeadline(wait, started, started + 7_000)).toBe(started + 7_000 + PROGRESS_SILENCE_MS);
    expect(expiryReason(wait, started, started + 7_000)).toBe('went_silent');
  });

  it('signals never extend the wait past the absolute maximum', () => {
    const wait = progressWait(2_000, 12_000);
    expect(replyDeadline(wait, started, started + 11_000)).toBe(started + 12_000);
    expect(replyDeadline(wait, started, started + 30_000)).toBe(started + 12_000);
    expect(expiryReason(wait, started, started + 11_000)).toBe('no_answer');
  });

  it('a service that dies mid-request is given up on within the silence allowance of its last signal', () => {
    // Signals every second up to a kill at 4.5 s: the last came at 4 s.
    const wait = progressWait(5_000, 15_000);
    const deadline = replyDeadline(wait, started, started + 4_000);
    expect(deadline - (started + 4_500)).toBeLessThanOrEqual(PROGRESS_SILENCE_MS);
    expect(deadline).toBeLessThan(started + 15_000);
  });

  it('the first-signal bound is itself capped by the maximum', () => {
    expect(replyDeadline(progressWait(5_000, 3_000), started)).toBe(started + 3_000);
  });
});

describe('lateReplyDeadline (listening on after the 503, for an Idempotency-Key)', () => {
  const ended = started + 12_000;

  it('a plain request, or a reporting one that never signalled, is listened for the whole late wait', () => {
    expect(lateReplyDeadline(fixedWait(5_000), ended, 60_000, ended - 100)).toBe(ended + 60_000);
    expect(lateReplyDeadline(progressWait(2_000, 12_000), ended, 60_000)).toBe(ended + 60_000);
  });

  it('a reporting request that went silent is given up at once: no reply will come from a dead process', () => {
    const lastSignal = started + 3_000;
    expect(lateReplyDeadline(progressWait(2_000, 12_000), started + 5_000, 60_000, lastSignal)).toBe(lastSignal + PROGRESS_SILENCE_MS);
  });

  it('one still signalling at its maximum is listened for while it signals, within the late wait', () => {
    const wait = progressWait(2_000, 12_000);
    expect(lateReplyDeadline(wait, ended, 60_000, ended + 30_000)).toBe(ended + 30_000 + PROGRESS_SILENCE_MS);
    expect(lateReplyDeadline(wait, ended, 60_000, ended + 59_000)).toBe(ended + 60_000);
  });
});
