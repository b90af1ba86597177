import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { CALL_EVENT_SCHEMA, explainCallEventProblem, findCallEventProblem } from '../../libs/contracts/src/call-event-payloads.js';

// ajv and ajv-formats are CommonJS: under ESM the class sits on `.default`.
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as unknown as typeof Ajv2020Module.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as typeof addFormatsModule.default;

// Compiled here on its own (every format, default options), apart from the service's validator.
const schema = structuredClone(CALL_EVENT_SCHEMA) as unknown as { $defs: Record<string, { properties: Record<string, { description?: string }> }> };
const ajv = new Ajv2020({ allErrors: false, strict: true, strictRequired: false });
addFormats(ajv);
const validateWithSchema = ajv.compile(schema);

const base = { id: 'evt-1', conversation_id: 'conv-1', agent_id: 'agt_1', occurred_at: '2025-01-31T14:05:00Z' };
const VALID: object[] = [
  { ...base, type: 'call.started', data: { caller_number: '+14155550123', start_time: '2025-01-31T14:05:00.250+01:00' } },
  { ...base, type: 'call.progress', data: {} },
  { ...base, type: 'call.progress', data: { duration: 30, sentiment: 'neutral', topics: ['billing', 'refund'] } },
  { ...base, type: 'call.transcript', data: { segments: [{ speaker: 'agent', text: 'Hello', start_ms: 0, end_ms: 900 }, { speaker: 'caller', text: 'Hi', start_ms: 900, end_ms: 900 }] } },
  {
    ...base, type: 'call.ended',
    data: {
      end_time: '2025-01-31T14:10:00Z', duration: 300, summary: 'Booked.', sentiment: 'positive', outcome: 'appointment_booked',
      topics: ['booking'], recording_url: 'https://rec.example.com/a.mp3?x=1', language: 'en-US', intent: 'book',
      satisfaction: { score: 4, indicators: ['thanked'] }, keywords: ['dentist'], actions_taken: ['booked'],
      follow_up_tasks: [{ description: 'Remind', due_at: '2025-02-01T09:00:00Z', assignee: 'desk' }],
      integrations: [{ system: 'zendesk', action: 'ticket_created', reference: 'ZD-1', details: { priority: 'high', tags: ['a'] } }],
      quality: { mos: 4.2, jitter_ms: 3, packet_loss_pct: 0, latency_ms: 80.5 }, network: { codec: 'opus', carrier: 'x', region: 'eu' },
      errors: [{ code: 'asr_timeout', message: 'slow', occurred_at: '2025-01-31T14:06:00Z' }],
    },
  },
  { ...base, type: 'call.failed', data: { failure_reason: 'sip_503', end_time: '2025-01-31T14:06:00Z', duration: 4, error: { code: 'sip', message: '503' } } },
  { ...base, type: 'call.abandoned', data: { reason: 'busy', caller_number: '+442071838750', start_time: '2025-01-31T14:05:00Z' } },
  // What platforms' webhooks map to: a withheld caller, live transcripts, an end without a duration, costs and latencies.
  { ...base, type: 'call.started', data: { start_time: '2025-01-31T14:05:00Z', platform_call_id: 'vapi-call-7f3a' } },
  { ...base, type: 'call.transcript', data: { provisional: true, anchor: 'occurred_at', segments: [{ speaker: 'caller', text: 'Hi', start_ms: 0, end_ms: 400 }] } },
  { ...base, type: 'call.transcript', data: { provisional: false, anchor: 'call_start', segments: [{ speaker: 'agent', text: 'Hello', start_ms: 0, end_ms: 900 }] } },
  { ...base, type: 'call.ended', data: { end_time: '2025-01-31T14:10:00Z', end_reason: 'customer-ended-call', platform_call_id: 'vapi-call-7f3a' } },
  {
    ...base, type: 'call.ended',
    data: {
      end_time: '2025-01-31T14:10:00Z', duration: 300,
      cost: { amount: 0.1234, currency: 'USD', breakdown: [{ component: 'llm', amount: 0.05 }, { component: 'tts', amount: 0 }] },
      latency: [{ component: 'llm', p50_ms: 420, p90_ms: 610.5, p99_ms: 900, average_ms: 450 }, { component: 'turn' }],
    },
  },
  { ...base, type: 'call.failed', data: { failure_reason: 'sip_503', end_reason: 'twilio-failed', cost: { amount: 0, currency: 'USD' }, latency: [] } },
  // An end whose start was never delivered carries the caller and the start itself.
  { ...base, type: 'call.failed', data: { failure_reason: 'error_asr', caller_number: '+14155550123', start_time: '2025-01-31T14:04:30Z', end_time: '2025-01-31T14:05:00Z' } },
  { ...base, type: 'call.ended', data: { end_time: '2025-01-31T14:10:00Z', caller_number: '+14155550123', start_time: '2025-01-31T14:05:00.5+01:00' } },
  {
    ...base, type: 'call.abandoned',
    data: { reason: 'no_answer', end_time: '2025-01-31T14:05:30Z', platform_call_id: 'x', end_reason: 'customer-did-not-answer', cost: { amount: 0.01, currency: 'USD', breakdown: [] } },
  },
];

const ODD_VALUES: unknown[] = [
  null, true, 0, -1, 1.5, 6, 2147483648, '', ' ', 'x', 'x'.repeat(129), 'not a date', '2025-02-30T00:00:00Z', '2025-01-31', '2025-01-31T14:05:00',
  '2025-01-31T14:05:00Z', '+14155550123', '14155550123', 'snake_case_label', 'Not Snake', 'agent', 'robot', 'busy', 'positive', 'call.ended',
  'https://x.example/y', 'ftp://x', 'en', 'english', [], ['a'], [''], {}, { speaker: 'agent', text: 't', start_ms: 0, end_ms: 1 },
  // Values that pass a naive check but that PostgreSQL refuses (or that leave years 0001–9999).
  'a\u0000b', '\u0000', '\uD800', 'x\uDC00', '\uDE00\uD83D', 'ok \uD83D\uDE00', 'https://x.example/\u0000', ['ok', '\uDBFF'],
  { 'k\u0000': 1 }, { nested: [{ deep: '\uD800' }] }, { fine: ['\uD83D\uDE00', 1, true, null] },
  '0000-01-01T00:00:00Z', '0000-12-31T23:00:00-02:00', '0001-01-01T00:00:00Z', '0001-01-01T00:30:00+01:00', '0001-01-01T23:00:00+00:30',
  '0001-01-01T00:00:00-05:00', '0001-01-02T00:00:00+23:59', '9999-12-31T23:59:59Z', '9999-12-31T23:59:59-10:00', '9999-12-31T10:00:00+10:00',
  '9999-12-31T23:59:59.999999999-00:00', '10000-01-01T00:00:00Z', '2016-12-31T23:59:60Z', '2025-01-31T14:05:00+24:00', '2025-01-31T14:05:00.1234567891Z',
  // Control characters: refused in an event id (it travels in a header), allowed in free text.
  'evt-1\r\n', 'a\tb', '\u001F', 'x\u007F', 'x\u0085', '\u009Fx', 'no\u00A0break',
  // The newer fields' edges: booleans, anchors, currencies, amounts.
  false, 'true', 'call_start', 'occurred_at', 'USD', 'usd', 'EUR', 0.0001, -0.01, 1e308, { amount: 1, currency: 'USD' }, { component: 'llm' },
];

/** Text around the edges of the control ranges (C0, DEL, C1) and of what can be stored, mixed with ordinary characters. */
const EDGE_CHARS = ['\u0000', '\u0001', '\t', '\n', '\r', '\u001F', ' ', '~', '\u007F', '\u0080', '\u0085', '\u009F', '\u00A0', 'é', '\uD83D\uDE00', '\uD800'];
const edgyText = fc.array(fc.oneof(fc.constantFrom(...EDGE_CHARS), fc.string({ minLength: 1, maxLength: 3 })), { minLength: 0, maxLength: 6 })
  .map((parts) => parts.join(''));

type Mutation = { kind: 'set'; value: unknown } | { kind: 'delete' } | { kind: 'add'; key: string };

function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return [prefix, ...value.flatMap((v, i) => paths(v, [...prefix, i]))];
  if (value && typeof value === 'object') return [prefix, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...prefix, k]))];
  return [prefix];
}

function mutate(sample: object, path: (string | number)[], mutation: Mutation): unknown {
  const copy = structuredClone(sample) as Record<string | number, unknown>;
  if (path.length === 0) return mutation.kind === 'set' ? mutation.value : copy;
  let parent: any = copy;
  for (const key of path.slice(0, -1)) parent = parent[key];
  const last = path[path.length - 1];
  if (mutation.kind === 'set') parent[last] = mutation.value;
  else if (mutation.kind === 'delete') Array.isArray(parent) ? parent.splice(Number(last), 1) : delete parent[last];
  else if (parent[last] && typeof parent[last] === 'object' && !Array.isArray(parent[last])) parent[last][mutation.key] = 'extra';
  return copy;
}

/** The one rule JSON Schema cannot state: a segment ending before it starts. */
function hasBackwardsSegment(value: unknown): boolean {
  const segments = (value as { data?: { segments?: unknown } })?.data?.segments;
  return Array.isArray(segments) && segments.some((s) => s && typeof s === 'object' && typeof s.start_ms === 'number' && typeof s.end_ms === 'number' && s.end_ms < s.start_ms);
}

/**
 * findCallEventProblem answers with the compiled schema, and explains a refusal by walking the same schema
 * (explainCallEventProblem). The walk must find a problem exactly when the schema refuses: otherwise a refused
 * event would get the vague fallback instead of a precise field, or a valid one a problem.
 */
const byWalk = (value: unknown) =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? explainCallEventProblem(value as Record<string, unknown>) === undefined : false;
const FALLBACK = /does not match the call-event schema/;

describe('the walk that explains a refused call event agrees with the compiled call-event schema', () => {
  it('accepts every valid sample, like the schema', () => {
    for (const sample of VALID) {
      expect([findCallEventProblem(sample), byWalk(sample), validateWithSchema(sample) || validateWithSchema.errors]).toEqual([undefined, true, true]);
    }
  });

  it('gives the same verdict on thousands of mutated samples', () => {
    const mutation: fc.Arbitrary<Mutation> = fc.oneof(
      fc.constantFrom(...ODD_VALUES).map((value) => ({ kind: 'set', value }) as Mutation),
      fc.constant({ kind: 'delete' } as Mutation),
      fc.constantFrom('colour', 'extra').map((key) => ({ kind: 'add', key }) as Mutation),
    );
    const case_ = fc.constantFrom(...VALID).chain((sample) =>
      fc.tuple(fc.constant(sample), fc.constantFrom(...paths(sample)), mutation),
    );
    fc.assert(
      fc.property(case_, ([sample, path, m]) => {
        const mutated = mutate(sample, path, m);
        const problem = findCallEventProblem(mutated);
        const byValidator = problem === undefined;
        const bySchema = validateWithSchema(mutated) as boolean;
        expect(problem?.message ?? '').not.toMatch(FALLBACK);
        if (hasBackwardsSegment(mutated)) return expect([byValidator, byWalk(mutated)]).toEqual([false, false]);
        expect({ path: path.join('.'), m, byValidator, byWalk: byWalk(mutated) }).toEqual({ path: path.join('.'), m, byValidator: bySchema, byWalk: bySchema });
      }),
      { numRuns: 2000, seed: 20250131 },
    );
  });

  it('give the same verdict on ids (and other text) mixing control characters, and refuse every id holding one', () => {
    const hasControl = (text: string) => /[\u0000-\u001F\u007F-\u009F]/.test(text);
    const field = fc.constantFrom('id', 'agent_id', 'data.failure_reason');
    let idsWithControl = 0;
    fc.assert(
      fc.property(field, edgyText, (key, text) => {
        const event = { ...base, type: 'call.failed', data: { failure_reason: 'sip_503' } } as Record<string, any>;
        if (key === 'data.failure_reason') event.data = { failure_reason: text };
        else event[key] = text;
        const byValidator = findCallEventProblem(event) === undefined;
        const bySchema = validateWithSchema(event) as boolean;
        expect({ key, text, byValidator, byWalk: byWalk(event) }).toEqual({ key, text, byValidator: bySchema, byWalk: bySchema });
        if (key === 'id' && hasControl(text)) {
          idsWithControl += 1;
          expect({ text, byValidator }).toEqual({ text, byValidator: false });
        }
      }),
      { numRuns: 3000, seed: 20251124 },
    );
    expect(idsWithControl).toBeGreaterThan(100);
  });

  it('both refuse what PostgreSQL cannot store or that leaves years 0001–9999, and both keep the edges that fit', () => {
    const progress = (occurred_at: string, agent_id = 'agt_1') => ({ ...base, agent_id, occurred_at, type: 'call.progress', data: {} });
    const ended = (extra: object) => ({ ...base, type: 'call.ended', data: { end_time: '2025-01-31T14:10:00Z', duration: 1, ...extra } });
    const refused = [
      progress('0000-01-01T00:00:00Z'), progress('0000-12-31T23:00:00-02:00'), progress('0001-01-01T00:30:00+01:00'),
      progress('9999-12-31T23:59:59-10:00'), progress('2016-12-31T23:59:60Z'), progress('10000-01-01T00:00:00Z'),
      progress('9999-12-31T23:59:59.9999995Z'), progress('9999-12-31T23:59:59.999999999-00:00'),
      progress('2025-01-31T14:05:00Z', 'agt\u0000'), progress('2025-01-31T14:05:00Z', 'agt\uD800'), progress('2025-01-31T14:05:00Z', '\uDC00agt'),
      ended({ summary: 'fine\u0000' }), ended({ topics: ['ok', '\uD83D'] }), ended({ recording_url: 'https://x.example/\u0000' }),
      ended({ integrations: [{ system: 's', action: 'a', details: { note: 'x\u0000' } }] }),
      ended({ integrations: [{ system: 's', action: 'a', details: { deep: [{ deeper: '\uDFFF' }] } }] }),
      ended({ integrations: [{ system: 's', action: 'a', details: { 'key\u0000': 1 } }] }),
    ];
    for (const sample of refused) {
      expect({ sample, byValidator: findCallEventProblem(sample) !== undefined, byWalk: !byWalk(sample), bySchema: !validateWithSchema(sample) })
        .toEqual({ sample, byValidator: true, byWalk: true, bySchema: true });
    }
    const accepted = [
      progress('0001-01-01T00:00:00Z'), progress('0001-01-01T00:00:00-05:00'), progress('9999-12-31T23:59:59.9999994Z'),
      progress('9999-12-31T23:59:59.999999999+00:01'),
      progress('9999-12-31T23:59:59+14:00'), progress('2025-01-31T14:05:00Z', 'agt_\uD83D\uDE00'),
      ended({ summary: 'Booked 😀', integrations: [{ system: 's', action: 'a', details: { '😀': ['ü', 1, null, { n: true }] } }] }),
    ];
    for (const sample of accepted) {
      expect([findCallEventProblem(sample), byWalk(sample), validateWithSchema(sample) || validateWithSchema.errors]).toEqual([undefined, true, true]);
    }
  });

  it('both reject a segment whose end is before its start (schema: documented, service: enforced)', () => {
    const backwards = { ...base, type: 'call.transcript', data: { segments: [{ speaker: 'agent', text: 'x', start_ms: 10, end_ms: 5 }] } };
    expect(findCallEventProblem(backwards)).toMatchObject({ field: 'data.segments[0].end_ms' });
    expect(schema.$defs.TranscriptSegment.properties.end_ms.description).toMatch(/start_ms/);
  });
});
