/** Transcript documents (text, SRT, WebVTT) from ordered segments; pure. */
import type { Speaker, TranscriptSegment } from '@voice/contracts';

const LABEL: Record<Speaker, string> = { agent: 'Agent', caller: 'Caller' };

/** HH:MM:SS<sep>mmm; hours keep counting past 24 (a cue time is a duration, not a clock time). */
export function cueTime(ms: number, separator: ',' | '.'): string {
  const total = Math.max(0, Math.floor(ms));
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const seconds = Math.floor((total % 60_000) / 1000);
  const millis = total % 1000;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(hours)}:${two(minutes)}:${two(seconds)}${separator}${String(millis).padStart(3, '0')}`;
}

/** A cue's text must not contain a blank line: it would end the cue. */
function cueText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/\n\s*\n/g, '\n').trim();
}

/** WebVTT cue text is markup: `&` and `<` must be escaped, and "-->" would end the timing line. */
function vttEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/-->/g, '--&gt;');
}

export function toText(segments: readonly TranscriptSegment[]): string {
  return segments.map((s) => `${LABEL[s.speaker]}: ${s.text.replace(/\s*\r?\n\s*/g, ' ').trim()}`).join('\n') + '\n';
}

export function toSrt(segments: readonly TranscriptSegment[]): string {
  return segments
    .map((s, i) => `${i + 1}\n${cueTime(s.start_ms, ',')} --> ${cueTime(s.end_ms, ',')}\n${LABEL[s.speaker]}: ${cueText(s.text)}\n`)
    .join('\n');
}

export function toVtt(segments: readonly TranscriptSegment[]): string {
  const cues = segments.map(
    (s) => `${cueTime(s.start_ms, '.')} --> ${cueTime(s.end_ms, '.')}\n${LABEL[s.speaker]}: ${vttEscape(cueText(s.text))}\n`,
  );
  return ['WEBVTT\n', ...cues].join('\n');
}
