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

/**
 * Every line terminator a reader may honour (CR, LF, CRLF, NEL, LINE SEPARATOR,
 * PARAGRAPH SEPARATOR) with the whitespace around it. `\s` covers U+2028/U+2029
 * but not U+0085, hence the explicit class.
 */
const LINE_BREAK_RUN = /[\s\u0085]*[\r\n\u0085\u2028\u2029][\s\u0085]*/g;

/**
 * A segment's text on one line. In SRT and WebVTT a line break inside cue text
 * lets the text forge structure (a blank line ends the cue, and the lines after
 * it can look like a new cue number and timing); in the text format it would
 * break "one line per segment".
 */
export function singleLine(text: string): string {
  return text.replace(LINE_BREAK_RUN, ' ').trim();
}

/** SRT has no escaping; an arrow in cue text is defused so no parser can take the line for a timing line. */
function srtText(text: string): string {
  return singleLine(text).replace(/-{2,}>/g, '->');
}

/** WebVTT cue text is markup: `&` and `<` must be escaped, and "-->" must not appear in it. */
function vttText(text: string): string {
  return singleLine(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/-->/g, '--&gt;');
}

/**
 * Cue start and end in whole milliseconds. A cue must end after it starts
 * (WebVTT requires it, SRT players drop or mis-time empty cues), so a
 * zero-length segment is shown for 1 ms; the stored segment is unchanged.
 */
function cueSpan(segment: TranscriptSegment): { start: number; end: number } {
  const start = Math.max(0, Math.floor(segment.start_ms));
  return { start, end: Math.max(Math.floor(segment.end_ms), start + 1) };
}

export function toText(segments: readonly TranscriptSegment[]): string {
  return segments.map((s) => `${LABEL[s.speaker]}: ${singleLine(s.text)}`).join('\n') + '\n';
}

export function toSrt(segments: readonly TranscriptSegment[]): string {
  return segments
    .map((s, i) => {
      const { start, end } = cueSpan(s);
      return `${i + 1}\n${cueTime(start, ',')} --> ${cueTime(end, ',')}\n${LABEL[s.speaker]}: ${srtText(s.text)}\n`;
    })
    .join('\n');
}

export function toVtt(segments: readonly TranscriptSegment[]): string {
  const cues = segments.map((s) => {
    const { start, end } = cueSpan(s);
    return `${cueTime(start, '.')} --> ${cueTime(end, '.')}\n${LABEL[s.speaker]}: ${vttText(s.text)}\n`;
  });
  return ['WEBVTT\n', ...cues].join('\n');
}
