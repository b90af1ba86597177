import { describe, expect, it } from '@jest/globals';
import { Buffer } from 'node:buffer';
import { findCallEventProblem } from '@voice/contracts';
import type { CallEvent, TranscriptSegment } from '@voice/contracts';
import { attributeToAgent, mapPlatformWebhook, splitForTransport } from '@voice/voice-platforms';

const LIMIT = 900 * 1024;
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
const segmentsOf = (event: CallEvent) => (event.data as { segments: TranscriptSegment[] }).segments;
const key = (s: TranscriptSegment) => JSON.stringify([s.start_ms, s.end_ms, s.speaker, s.text]);

/** A two-hour platform_a call with word timings: 6,000 utterances of 17 words, about 5 MB of JSON. */
function twoHourCall() {
  const start = Date.UTC(2026, 0, 1, 9);
  const transcript_object = Array.from({ length: 6000 }, (_, u) => {
    const at = u * 1.2;
    const words = Array.from({ length: 17 }, (__, w) => ({ word: `word${String(u * 17 + w).padStart(6, '0')}`, start: Number((at + w * 0.065).toFixed(3)), end: Number((at + w * 0.065 + 0.06).toFixed(3)) }));
    return { role: u % 2 === 0 ? 'agent' : 'user', content: words.map((w) => w.word).join(' '), words };
  });
  const call = {
    call_id: 'call_two_hours', agent_id: 'agent_x', direction: 'inbound', from_number: '+14155550123', call_status: 'ended',
    start_timestamp: start, end_timestamp: start + 7_200_000, duration_ms: 7_200_000, disconnection_reason: 'agent_hangup', transcript_object,
  };
  return { event: 'call_ended', call };
}

describe('splitForTransport', () => {
  it('a ~5 MB two-hour call_ended maps and splits into events of at most 900 KiB whose segments are the whole transcript', () => {
    const body = twoHourCall();
    expect(bytes(body)).toBeGreaterThan(4.5 * 1024 * 1024);
    const mapping = mapPlatformWebhook('platform_a', body);
    if (mapping.result !== 'mapped') throw new Error(JSON.stringify(mapping));
    const events = attributeToAgent(mapping.events, 'agt_1');
    // More than 5000 segments: the mapping itself already cut the transcript in parts the contract accepts.
    expect(events.map((e) => [e.type, e.id.replace(/-[0-9a-f]{16}/, '-<hash>')])).toEqual([
      ['call.ended', 'pa:call_two_hours:call.ended:call_ended'],
      ['call.transcript', 'pa:call_two_hours:call.transcript:full-<hash>:p0'],
      ['call.transcript', 'pa:call_two_hours:call.transcript:full-<hash>:p1'],
    ]);
    expect(bytes(events[1])).toBeGreaterThan(LIMIT);

    const parts = splitForTransport(events, LIMIT);
    expect(parts.length).toBeGreaterThan(events.length);
    for (const part of parts) {
      expect(bytes(part)).toBeLessThanOrEqual(LIMIT);
      expect(findCallEventProblem(part)).toBeUndefined();
      expect(part.id.length).toBeLessThanOrEqual(128);
    }
    expect(new Set(parts.map((p) => p.id)).size).toBe(parts.length);
    expect(parts[0]).toBe(events[0]);
    const transcriptParts = parts.filter((p) => p.type === 'call.transcript');
    expect(transcriptParts[0].id).toMatch(/:full-[0-9a-f]{16}:p0:p0$/);
    for (const part of transcriptParts) expect([part.occurred_at, part.data]).toMatchObject([events[1].occurred_at, {}]);
    expect(transcriptParts.every((p) => !('provisional' in p.data))).toBe(true);

    const expected = body.call.transcript_object.map((u) => key({
      speaker: u.role === 'agent' ? 'agent' : 'caller', text: u.content, start_ms: Math.round(u.words[0].start * 1000), end_ms: Math.round(u.words[16].end * 1000),
    }));
    const union = transcriptParts.flatMap((p) => segmentsOf(p).map(key));
    expect(union).toHaveLength(expected.length);
    expect(new Set(union)).toEqual(new Set(expected));

    // Deterministic: the same body gives the very same parts.
    const again = mapPlatformWebhook('platform_a', twoHourCall());
    if (again.result !== 'mapped') throw new Error('not mapped');
    expect(splitForTransport(attributeToAgent(again.events, 'agt_1'), LIMIT)).toEqual(parts);
  });

  const transcript = (segments: number, extra: Record<string, unknown> = {}): CallEvent => ({
    id: 'pb:call-1:call.transcript:t1-agent-0123456789abcdef', type: 'call.transcript', conversation_id: 'call-1', agent_id: 'agt_1', occurred_at: '2026-01-01T00:00:00Z',
    data: { segments: Array.from({ length: segments }, (_, i) => ({ speaker: 'agent' as const, text: `segment number ${i}`, start_ms: i, end_ms: i })), ...extra },
  });

  it('keeps events that fit as they are, and the provisional flags on every part', () => {
    const small = transcript(3);
    expect(splitForTransport([small], LIMIT)).toEqual([small]);
    const live = transcript(100, { provisional: true, anchor: 'occurred_at' });
    const parts = splitForTransport([live], 1000);
    expect(parts.length).toBeGreaterThan(3);
    parts.forEach((part, i) => {
      expect(part).toMatchObject({ id: `${live.id}:p${i}`, type: 'call.transcript', occurred_at: live.occurred_at, data: { provisional: true, anchor: 'occurred_at' } });
      expect(bytes(part)).toBeLessThanOrEqual(1000);
      expect(findCallEventProblem(part)).toBeUndefined();
    });
    expect(parts.flatMap(segmentsOf)).toEqual(segmentsOf(live));
  });

  it('hashes the id when `<id>:p<i>` would pass 128 characters', () => {
    const long = { ...transcript(50), id: `x${'y'.repeat(125)}` };
    const parts = splitForTransport([long], 800);
    expect(parts.map((p) => p.id)).toEqual(parts.map((_, i) => expect.stringMatching(new RegExp(`^h-[0-9a-f]{40}:p${i}$`))));
    for (const part of parts) expect(findCallEventProblem(part)).toBeUndefined();
  });

  it('splits any other event by its optional fields, each part carrying the required ones', () => {
    const integrations = Array.from({ length: 6 }, (_, i) => ({ system: 'crm', action: `update_${i}`, details: { blob: 'z'.repeat(400) } }));
    const ended: CallEvent = {
      id: 'pa:c:call.ended:call_analyzed', type: 'call.ended', conversation_id: 'c', agent_id: 'agt_1', occurred_at: '2026-01-01T00:00:00Z',
      data: { end_time: '2026-01-01T00:00:00Z', duration: 12, summary: 's'.repeat(2000), integrations, topics: ['billing'] },
    };
    const parts = splitForTransport([ended], 3000);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(bytes(part)).toBeLessThanOrEqual(3000);
      expect(findCallEventProblem(part)).toBeUndefined();
      expect(part).toMatchObject({ type: 'call.ended', occurred_at: ended.occurred_at, data: { end_time: ended.data.end_time } });
    }
    expect(Object.assign({}, ...parts.map((p) => p.data))).toEqual(ended.data);
  });

  it('refuses a limit no part can meet', () => {
    expect(() => splitForTransport([transcript(10)], 100)).toThrow(RangeError);
    expect(() => splitForTransport([transcript(10)], 0)).toThrow(RangeError);
  });
});

describe('attributeToAgent', () => {
  it('sets agent_id on every event, in the contract field order', () => {
    const mapping = mapPlatformWebhook('platform_b', {
      message: { type: 'status-update', status: 'in-progress', timestamp: 0, call: { id: 'c-1', assistantId: 'a-1' } },
    });
    if (mapping.result !== 'mapped') throw new Error('not mapped');
    const [event] = attributeToAgent(mapping.events, 'agt_9');
    expect(Object.keys(event)).toEqual(['id', 'type', 'conversation_id', 'agent_id', 'occurred_at', 'data']);
    expect(event).toMatchObject({ agent_id: 'agt_9', occurred_at: '1970-01-01T00:00:00.000Z' });
    expect(findCallEventProblem(event)).toBeUndefined();
  });
});
