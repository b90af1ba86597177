#!/usr/bin/env node
// `node bench/validation.bench.mjs` — CPU spent validating payloads, without HTTP, bus or database:
// a 500-event call-event batch (what the gateway checks on POST /v1/call-events and what conversations-service
// checks again when it consumes each event) and one agent-create body (what agents-service checks on create).
// Runs against the built contracts package (`npm run build` or `tsc -b` first), or the one at BENCH_CONTRACTS
// (a path to another build's dist/index.js, to compare with an older commit). Prints CPU microseconds per
// operation (user + system, process.cpuUsage) as the median of several rounds, after a warm-up.
import { pathToFileURL } from 'node:url';
import { importBuilt } from './support.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const BATCHES_PER_ROUND = Number(process.env.BENCH_BATCHES ?? 40);
const CREATES_PER_ROUND = Number(process.env.BENCH_CREATES ?? 20000);

const contracts = process.env.BENCH_CONTRACTS
  ? await import(pathToFileURL(process.env.BENCH_CONTRACTS).href)
  : (await importBuilt({ contracts: 'libs/contracts/dist/index.js' })).contracts;
const { findCallEventProblem, findCreateAgentProblem } = contracts;

/** A realistic mix: mostly live transcript and progress events, a start and an end with its details per call. */
function batch(size) {
  const events = [];
  for (let i = 0; events.length < size; i += 1) {
    const base = { conversation_id: `conv-${i}`, agent_id: 'agt_01HZX3J5K8Q2W7E9R4T6Y1U0IO', occurred_at: '2025-01-31T14:05:00.250Z' };
    const id = (n) => `evt-${i}-${n}`;
    events.push({ ...base, id: id(0), type: 'call.started', data: { caller_number: '+14155550123', start_time: '2025-01-31T14:05:00Z', platform_call_id: `vapi-${i}` } });
    for (let n = 1; n <= 6; n += 1) {
      events.push({
        ...base, id: id(n), type: 'call.transcript',
        data: { provisional: false, anchor: 'call_start', segments: [
          { speaker: 'agent', text: 'Hello, thanks for calling Bright Smile Dental, how can I help?', start_ms: n * 4000, end_ms: n * 4000 + 1800 },
          { speaker: 'caller', text: 'Hi, I would like to book a cleaning next Tuesday morning 😀', start_ms: n * 4000 + 2000, end_ms: n * 4000 + 3900 },
        ] },
      });
    }
    events.push({ ...base, id: id(7), type: 'call.progress', data: { duration: 30, sentiment: 'positive', topics: ['booking', 'cleaning'] } });
    events.push({
      ...base, id: id(8), type: 'call.ended',
      data: {
        end_time: '2025-01-31T14:10:00Z', duration: 300, summary: 'Booked a cleaning for Tuesday 9:00.', sentiment: 'positive',
        outcome: 'appointment_booked', topics: ['booking'], recording_url: 'https://rec.example.com/a.mp3', language: 'en',
        satisfaction: { score: 5, indicators: ['thanked agent'] }, keywords: ['dentist', 'cleaning'],
        follow_up_tasks: [{ description: 'Send reminder', due_at: '2025-02-03T09:00:00Z' }],
        integrations: [{ system: 'calendar', action: 'event_created', reference: 'CAL-1', details: { slot: '2025-02-04T09:00' } }],
        quality: { mos: 4.3, jitter_ms: 3, packet_loss_pct: 0.1, latency_ms: 120 },
        cost: { amount: 0.1234, currency: 'USD', breakdown: [{ component: 'llm', amount: 0.05 }, { component: 'tts', amount: 0.02 }] },
        latency: [{ component: 'llm', p50_ms: 420, p90_ms: 610.5, p99_ms: 900 }],
      },
    });
  }
  return events.slice(0, size);
}

const agentCreate = {
  name: 'Front desk', voice_platform: 'platform_a', voice_id: 'voice_rachel', language: 'en',
  system_prompt: 'You are the front desk of Bright Smile Dental. Book, move and cancel appointments.',
  welcome_message: 'Hello, Bright Smile Dental, how can I help?', transfer_number: '+14155550199',
  business_hours: { timezone: 'America/New_York', schedule: [{ day: 'monday', open: '09:00', close: '17:00' }, { day: 'tuesday', open: '09:00', close: '17:00' }] },
  recording_enabled: true, transcription_enabled: true, metadata: { clinic: 'downtown', tier: 'gold' },
};

function cpuMicrosPerOp(operation, count) {
  const rounds = [];
  for (let r = 0; r < ROUNDS; r += 1) {
    const start = process.cpuUsage();
    for (let i = 0; i < count; i += 1) operation();
    const used = process.cpuUsage(start);
    rounds.push((used.user + used.system) / count);
  }
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(rounds.length / 2)];
}

const events = batch(500);
const validateBatch = () => {
  for (const [i, event] of events.entries()) {
    const problem = findCallEventProblem(event, `events[${i}]`);
    if (problem) throw new Error(`bench event refused: ${JSON.stringify(problem)}`);
  }
};
const validateCreate = () => {
  const problem = findCreateAgentProblem(agentCreate);
  if (problem) throw new Error(`bench agent refused: ${JSON.stringify(problem)}`);
};

// Warm-up, so the figures are of optimised code.
for (let i = 0; i < 5; i += 1) validateBatch();
for (let i = 0; i < 5000; i += 1) validateCreate();

const batchMicros = cpuMicrosPerOp(validateBatch, BATCHES_PER_ROUND);
const createMicros = cpuMicrosPerOp(validateCreate, CREATES_PER_ROUND);
console.log(`call-event batch of 500: ${(batchMicros / 1000).toFixed(2)} ms CPU (${(batchMicros / 500).toFixed(1)} µs per event)`);
console.log(`agent create body:       ${createMicros.toFixed(1)} µs CPU`);
