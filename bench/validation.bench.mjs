#!/usr/bin/env node
// `node bench/validation.bench.mjs` — CPU spent validating payloads, without HTTP, bus or database:
// a 500-event call-event batch (what the gateway checks on POST /v1/call-events and what conversations-service
// checks again when it consumes each event) and one agent-create body (what agents-service checks on create).
// Runs against the built contracts package (`npm run build` or `tsc -b` first). With BENCH_BASELINE (the
// dist/index.js of another build of libs/contracts, e.g. an older commit's) it also measures that one, in its own
// process, and writes both into BENCHMARKS.md between the validation markers. Figures are CPU time per operation
// (user + system, process.cpuUsage), the median of several rounds after a warm-up.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importBuilt, writeBenchmarkSection } from './support.mjs';

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

const now = { batchMicros: cpuMicrosPerOp(validateBatch, BATCHES_PER_ROUND), createMicros: cpuMicrosPerOp(validateCreate, CREATES_PER_ROUND) };
if (process.env.BENCH_REPORT_JSON) {
  console.log(JSON.stringify(now));
  process.exit(0);
}
const show = (label, { batchMicros, createMicros }) => {
  console.log(`${label}call-event batch of 500: ${(batchMicros / 1000).toFixed(2)} ms CPU (${(batchMicros / 500).toFixed(1)} µs per event)`);
  console.log(`${label}agent create body:       ${createMicros.toFixed(1)} µs CPU`);
};
show('', now);

if (process.env.BENCH_BASELINE) {
  const output = execFileSync(process.execPath, [fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_CONTRACTS: process.env.BENCH_BASELINE, BENCH_REPORT_JSON: '1' }, encoding: 'utf8',
  });
  const before = JSON.parse(output.trim().split('\n').pop());
  show('baseline: ', before);
  const row = (what, b, n, unit, scale) => `| ${what} | ${(b / scale).toFixed(2)} ${unit} | ${(n / scale).toFixed(2)} ${unit} | ${(n / b).toFixed(2)}× |`;
  writeBenchmarkSection('validation', [
    '## Payload validation CPU',
    '',
    `**A 500-event call-event batch: ${(now.batchMicros / 1000).toFixed(2)} ms of CPU, ${(now.batchMicros / before.batchMicros).toFixed(2)}× the baseline's ${(before.batchMicros / 1000).toFixed(2)} ms; an agent-create body ${now.createMicros.toFixed(1)} µs, ${(now.createMicros / before.createMicros).toFixed(2)}× its ${before.createMicros.toFixed(1)} µs.**`,
    '',
    'Command: `npm run build && BENCH_BASELINE=<another build>/libs/contracts/dist/index.js node bench/validation.bench.mjs` (env: `BENCH_BASELINE_LABEL`, `BENCH_ROUNDS`, `BENCH_BATCHES`, `BENCH_CREATES`).',
    `Run on ${new Date().toISOString()}: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version}; baseline: ${process.env.BENCH_BASELINE_LABEL ?? `\`${process.env.BENCH_BASELINE}\``}.`,
    '',
    '| CPU per operation | baseline | now | now / baseline |',
    '|---|---|---|---|',
    row('findCallEventProblem over a 500-event batch (gateway, then conversations-service again)', before.batchMicros, now.batchMicros, 'ms', 1000),
    row('findCreateAgentProblem on one agent-create body (agents-service)', before.createMicros, now.createMicros, 'µs', 1),
  ].join('\n'));
}
