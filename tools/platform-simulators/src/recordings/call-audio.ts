/**
 * A call's recording laid out from its transcript: each turn's speech placed at the turn's start, silence
 * between turns and until the hang-up, so a player's position is the transcript's time. Pure: the speech
 * comes from a `speak` function (eSpeak NG in the simulators, anything in a test).
 */

/** 16-bit mono PCM: a phone line's quality is enough, and a minute stays around 1.3 MB. */
export const RECORDING_SAMPLE_RATE = 11_025;
/** eSpeak NG's rate for an average speaker, words a minute. */
export const NORMAL_RATE_WPM = 175;
const FASTEST_RATE_WPM = 450;
const SLOWEST_RATE_WPM = 130;

export interface RecordingTurn {
  role: 'agent' | 'user';
  text: string;
  /** Offsets from the call's start, ms. */
  startMs: number;
  endMs: number;
}

/** What a recording is made from: registered when a call is placed (or by the demo's seed), synthesised on first request. */
export interface RecordingScript {
  turns: RecordingTurn[];
  durationMs: number;
  /** eSpeak NG voice names, e.g. `en-us+f3`. */
  voices: { agent: string; user: string };
}

export interface Speech {
  samples: Int16Array;
  sampleRate: number;
}

export type Speak = (text: string, voice: string, rateWpm: number) => Promise<Speech>;

/** The caller's voice, chosen from the call's id so one call always sounds the same. */
export const AGENT_VOICE = 'en-us+f3';
const CALLER_VOICES = ['en-us', 'en-us+m3', 'en-us+f2', 'en-us+m7'];

export function voicesFor(callId: string): RecordingScript['voices'] {
  let hash = 0;
  for (const char of callId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return { agent: AGENT_VOICE, user: CALLER_VOICES[hash % CALLER_VOICES.length] };
}

/** The script, checked; without voices, those `voicesFor(id)` picks. */
export function checkRecordingScript(id: string, value: unknown): RecordingScript | string {
  if (typeof value !== 'object' || value === null) return 'a recording script must be an object { turns, durationMs, voices? }';
  const script = value as Partial<RecordingScript>;
  if (!Number.isFinite(script.durationMs) || (script.durationMs as number) < 0 || (script.durationMs as number) > 3_600_000) return 'durationMs must be from 0 to 3,600,000';
  if (!Array.isArray(script.turns)) return 'turns must be an array';
  let previousStart = 0;
  for (const turn of script.turns) {
    const valid = (turn?.role === 'agent' || turn?.role === 'user') && typeof turn.text === 'string' && turn.text.trim() !== '' && Number.isFinite(turn.startMs) && Number.isFinite(turn.endMs);
    if (!valid) return 'each turn must be { role: "agent" | "user", text, startMs, endMs }';
    if (turn.startMs < previousStart || turn.endMs < turn.startMs || turn.endMs > (script.durationMs as number)) return 'turns must be in order, each ending after it starts and before the call ends';
    previousStart = turn.startMs;
  }
  const turns = script.turns.map(({ role, text, startMs, endMs }) => ({ role, text, startMs, endMs }));
  return { turns, durationMs: script.durationMs as number, voices: script.voices ?? voicesFor(id) };
}

/**
 * The call's samples at RECORDING_SAMPLE_RATE. A turn said too slowly for its place in the transcript is said
 * again faster (and one said much too fast, slower), so speech and transcript stay in step; what still
 * overruns the next turn is cut.
 */
export async function renderCall(script: RecordingScript, speak: Speak): Promise<Int16Array> {
  const total = samplesFor(script.durationMs);
  const out = new Int16Array(total);
  for (const [index, turn] of script.turns.entries()) {
    const voice = script.voices[turn.role];
    const slotMs = Math.max(200, turn.endMs - turn.startMs);
    let speech = resample(await speak(turn.text, voice, NORMAL_RATE_WPM));
    const spokenMs = (speech.length / RECORDING_SAMPLE_RATE) * 1000;
    const ratio = spokenMs / slotMs;
    if (ratio > 1.02 || ratio < 0.8) {
      const rate = Math.round(Math.min(FASTEST_RATE_WPM, Math.max(SLOWEST_RATE_WPM, NORMAL_RATE_WPM * ratio * (ratio > 1 ? 1.04 : 1))));
      speech = resample(await speak(turn.text, voice, rate));
    }
    const start = samplesFor(turn.startMs);
    const next = script.turns[index + 1];
    const limit = Math.min(total, next ? samplesFor(next.startMs) : total);
    out.set(speech.subarray(0, Math.max(0, limit - start)), start);
  }
  return out;
}

function samplesFor(ms: number): number {
  return Math.round((ms / 1000) * RECORDING_SAMPLE_RATE);
}

/** To RECORDING_SAMPLE_RATE, by linear interpolation (eSpeak NG speaks at 22,050 Hz: exactly every other sample, averaged). */
export function resample({ samples, sampleRate }: Speech): Int16Array {
  if (sampleRate === RECORDING_SAMPLE_RATE) return samples;
  const step = sampleRate / RECORDING_SAMPLE_RATE;
  const out = new Int16Array(Math.floor(samples.length / step));
  for (let i = 0; i < out.length; i += 1) {
    const at = i * step;
    const low = Math.floor(at);
    const high = Math.min(samples.length - 1, low + 1);
    // Averaging the neighbours is the low-pass that keeps the downsampled speech from aliasing.
    out[i] = step >= 2 ? Math.round((samples[low] + samples[high]) / 2) : Math.round(samples[low] + (samples[high] - samples[low]) * (at - low));
  }
  return out;
}

/** A RIFF/WAVE file: 16-bit PCM, mono. */
export function wavFile(samples: Int16Array, sampleRate = RECORDING_SAMPLE_RATE): Buffer {
  const data = samples.length * 2;
  const file = Buffer.alloc(44 + data);
  file.write('RIFF', 0, 'ascii');
  file.writeUInt32LE(36 + data, 4);
  file.write('WAVE', 8, 'ascii');
  file.write('fmt ', 12, 'ascii');
  file.writeUInt32LE(16, 16);
  file.writeUInt16LE(1, 20); // PCM
  file.writeUInt16LE(1, 22); // mono
  file.writeUInt32LE(sampleRate, 24);
  file.writeUInt32LE(sampleRate * 2, 28);
  file.writeUInt16LE(2, 32);
  file.writeUInt16LE(16, 34);
  file.write('data', 36, 'ascii');
  file.writeUInt32LE(data, 40);
  Buffer.from(samples.buffer, samples.byteOffset, data).copy(file, 44);
  return file;
}

/**
 * One byte range of a `size`-byte file from a Range header (RFC 9110: `bytes=a-b`, `bytes=a-`, `bytes=-n`):
 * `undefined` for the whole file (no header, or one this server does not honour, such as several ranges),
 * `'unsatisfiable'` when it starts past the end.
 */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '');
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}
