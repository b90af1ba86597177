/**
 * Realistic, deterministic (seeded) call traffic: every status, transcripts,
 * topics, outcomes and sentiment. Pure, so the simulator (scripts/simulate.mjs),
 * the demo data of `npm start` (scripts/seed-demo.mjs) and the integration tests
 * share it.
 */
import type { CallEvent, Sentiment, TranscriptSegment } from '@voice/contracts';

export interface GenerateOptions {
  count: number;
  seed?: number;
  agentIds: readonly string[];
  /** Calls start between `from` and `from + spanDays`. */
  from?: string;
  spanDays?: number;
  /** Prefix of the conversation ids (keeps runs apart). */
  idPrefix?: string;
}

export interface SimulatedCall {
  conversation_id: string;
  agent_id: string;
  events: CallEvent[];
}

/** mulberry32: small, fast, good enough for test data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SCENARIOS = [
  {
    topics: ['billing', 'invoice'],
    outcome: 'resolved',
    intent: 'billing_question',
    lines: [
      ['agent', 'Thanks for calling, how can I help you today?'],
      ['caller', 'I was charged twice on my last invoice.'],
      ['agent', 'I see the duplicate charge of 49.99, I will refund it now.'],
      ['caller', 'Great, thank you so much.'],
    ],
    summary: 'Caller reported a duplicate charge; refund issued.',
  },
  {
    topics: ['appointment', 'scheduling'],
    outcome: 'appointment_booked',
    intent: 'book_appointment',
    lines: [
      ['agent', 'Hello, you have reached the clinic front desk.'],
      ['caller', 'I would like to book a check-up next Tuesday.'],
      ['agent', 'Tuesday at 10:30 is available, shall I book it?'],
      ['caller', 'Yes please.'],
    ],
    summary: 'Appointment booked for Tuesday 10:30.',
  },
  {
    topics: ['technical_support', 'Internet'],
    outcome: 'transferred',
    intent: 'report_outage',
    lines: [
      ['agent', 'Support line, what seems to be the problem?'],
      ['caller', 'My internet has been down since this morning.'],
      ['agent', 'Let me transfer you to a network specialist.'],
    ],
    summary: 'Internet outage reported; transferred to a specialist.',
  },
  {
    topics: ['sales', 'pricing'],
    outcome: 'lead_captured',
    intent: 'pricing_inquiry',
    lines: [
      ['agent', 'Hi! Are you interested in our spring offer?'],
      ['caller', 'Is it really 50% off for the first_month?'],
      ['agent', 'Yes, 50% off the first month for new customers.'],
    ],
    summary: 'Prospect asked about the 50% off first_month promotion.',
  },
  {
    topics: ['cancellation'],
    outcome: 'escalated',
    intent: 'cancel_subscription',
    lines: [
      ['caller', 'I want to cancel my subscription right now.'],
      ['agent', 'I am sorry to hear that, may I ask why?'],
      ['caller', 'The service keeps failing.'],
    ],
    summary: 'Caller demanded cancellation; escalated to retention.',
  },
] as const;

const SENTIMENTS: readonly (Sentiment | null)[] = ['positive', 'neutral', 'negative', null];
const CALLERS = Array.from({ length: 40 }, (_, i) => `+1415555${String(1000 + i * 37).padStart(4, '0')}`);

export function generateCalls(options: GenerateOptions): SimulatedCall[] {
  const random = prng(options.seed ?? 1);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const from = Date.parse(options.from ?? '2025-01-01T00:00:00.000Z');
  const span = (options.spanDays ?? 30) * 86_400_000;
  const prefix = options.idPrefix ?? 'sim';
  const calls: SimulatedCall[] = [];

  for (let n = 0; n < options.count; n++) {
    const conversationId = `${prefix}-${n.toString(36)}-${Math.floor(random() * 1e9).toString(36)}`;
    const agentId = pick(options.agentIds);
    const start = from + Math.floor(random() * span / 1000) * 1000;
    const iso = (offsetSeconds: number) => new Date(start + offsetSeconds * 1000).toISOString();
    let seq = 0;
    const event = <T extends CallEvent['type']>(type: T, offset: number, data: Extract<CallEvent, { type: T }>['data']): CallEvent =>
      ({ id: `${conversationId}:${++seq}`, type, conversation_id: conversationId, agent_id: agentId, occurred_at: iso(offset), data }) as CallEvent;

    const roll = random();
    const status = roll < 0.6 ? 'completed' : roll < 0.72 ? 'failed' : roll < 0.85 ? 'abandoned' : 'in_progress';
    const caller = pick(CALLERS);
    const scenario = pick(SCENARIOS);
    const sentiment = pick(SENTIMENTS);
    const duration = 20 + Math.floor(random() * 900);
    const events: CallEvent[] = [];

    if (status === 'abandoned') {
      const withCaller = random() < 0.8;
      events.push(event('call.abandoned', 0, {
        reason: pick(['busy', 'no_answer', 'caller_hangup'] as const),
        ...(withCaller ? { caller_number: caller } : {}),
        start_time: iso(0),
      }));
      calls.push({ conversation_id: conversationId, agent_id: agentId, events });
      continue;
    }

    events.push(event('call.started', 0, { caller_number: caller, start_time: iso(0) }));
    const midway = Math.max(1, Math.floor(duration / 2));
    events.push(event('call.progress', midway, {
      duration: midway,
      ...(sentiment ? { sentiment } : {}),
      topics: [scenario.topics[0]],
    }));
    const segments: TranscriptSegment[] = scenario.lines.map(([speaker, text], i) => {
      const startMs = Math.floor((i * duration * 1000) / scenario.lines.length);
      return { speaker, text, start_ms: startMs, end_ms: startMs + 1500 + Math.floor(random() * 2000) };
    });
    const withTranscript = random() < 0.85;

    if (status === 'in_progress') {
      if (withTranscript) events.push(event('call.transcript', midway, { segments: segments.slice(0, 2) }));
    } else if (status === 'failed') {
      if (withTranscript) events.push(event('call.transcript', midway, { segments: segments.slice(0, 1) }));
      events.push(event('call.failed', midway + 5, {
        failure_reason: pick(['network_error', 'sip_timeout', 'platform_unavailable']),
        end_time: iso(midway + 5),
        duration: midway + 5,
        error: { code: 'media_timeout', message: 'No RTP packets for 5 seconds.' },
      }));
    } else {
      const withRecording = random() < 0.8;
      events.push(event('call.ended', duration, {
        end_time: iso(duration),
        duration,
        summary: scenario.summary,
        ...(sentiment ? { sentiment } : {}),
        outcome: scenario.outcome,
        topics: [...scenario.topics],
        ...(withRecording ? { recording_url: `https://recordings.example.com/${conversationId}.mp3` } : {}),
        language: 'en',
        intent: scenario.intent,
        satisfaction: { score: sentiment === 'negative' ? 2 : sentiment === 'positive' ? 5 : 3 },
        keywords: scenario.topics.map((t) => t.toLowerCase()),
        actions_taken: [`${scenario.outcome} recorded`],
        quality: { mos: 4.1, jitter_ms: 4, packet_loss_pct: 0.2, latency_ms: 140 },
        network: { codec: 'opus', region: 'us-west' },
      }));
      // The final transcript often arrives after the call ended.
      if (withTranscript) events.push(event('call.transcript', duration + 2, { segments }));
    }
    calls.push({ conversation_id: conversationId, agent_id: agentId, events });
  }
  return calls;
}
