/**
 * Which transcript format a request asks for: `?format=` first, else
 * proactive content negotiation on Accept (RFC 9110 §12.5.1).
 */

/** Formats the transcript endpoint produces and their media types, in the order that wins a q-value tie. */
export const TRANSCRIPT_MEDIA_TYPES = [
  ['json', 'application/json'],
  ['text', 'text/plain'],
  ['srt', 'application/x-subrip'],
  ['vtt', 'text/vtt'],
] as const;

export type TranscriptChoice =
  | { ok: true; format: string }
  /** The Accept header admits none of the media types we produce: 406. */
  | { ok: false; supported: string[] };

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
/** RFC 9110 qvalue: 0 to 1 with at most three decimals. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** Split on `sep` outside quoted strings (a parameter value may contain a comma or semicolon). */
function splitOutsideQuotes(value: string, sep: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i += 1) {
    const ch = value[i];
    if (quoted && ch === '\\' && i + 1 < value.length) {
      current += ch + value[i + 1];
      i += 1;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === sep && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

/** The media ranges of an Accept value; an element that is not a media range, or whose q is not a qvalue, is ignored. */
function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const element of splitOutsideQuotes(accept, ',')) {
    const [mediaRange, ...params] = splitOutsideQuotes(element, ';').map((p) => p.trim());
    const [type, subtype, ...rest] = mediaRange.toLowerCase().split('/');
    if (rest.length > 0 || !type || !subtype || !TOKEN.test(type) || !TOKEN.test(subtype)) continue;
    if (type === '*' && subtype !== '*') continue;
    // Only q matters to us: every format is UTF-8 and has no other parameters to match.
    const qParam = params.find((p) => /^q\s*=/i.test(p));
    const qText = qParam === undefined ? '1' : qParam.slice(qParam.indexOf('=') + 1).trim();
    if (!QVALUE.test(qText)) continue;
    ranges.push({ type, subtype, q: Number(qText) });
  }
  return ranges;
}

/** The q a media type gets: from the most specific range that matches it (type/subtype, then type/*, then *\/*); 0 if none. */
function qualityOf(mediaType: string, ranges: readonly MediaRange[]): number {
  const [type, subtype] = mediaType.split('/');
  let best: { specificity: number; q: number } | undefined;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype ? 3 : range.type === type && range.subtype === '*' ? 2 : range.type === '*' ? 1 : 0;
    if (specificity === 0) continue;
    // Among equally specific ranges (a repeated type), the most generous q wins.
    if (!best || specificity > best.specificity || (specificity === best.specificity && range.q > best.q)) best = { specificity, q: range.q };
  }
  return best?.q ?? 0;
}

/**
 * `?format=` wins over Accept; it is case-insensitive and otherwise passed on
 * untouched (the service answers a value it does not know with
 * invalid_parameter + valid_values). Without it, each format gets the q-value
 * of the most specific Accept range matching its media type, and the highest
 * q above 0 wins, ties going to json, text, srt, vtt in that order. No Accept
 * (or one with no readable media range) means json; an Accept that refuses
 * every format (e.g. `image/png`, or `application/json;q=0` alone) is not
 * answered with something the client said it cannot use.
 */
export function transcriptFormat(formatParam: unknown, accept: string | undefined): TranscriptChoice {
  if (typeof formatParam === 'string') return { ok: true, format: formatParam.toLowerCase() };
  if (Array.isArray(formatParam)) return { ok: true, format: formatParam.map((v) => String(v).toLowerCase()).join(',') };
  const ranges = accept === undefined ? [] : parseAccept(accept);
  if (ranges.length === 0) return { ok: true, format: 'json' };
  let chosen: { format: string; q: number } | undefined;
  for (const [format, mediaType] of TRANSCRIPT_MEDIA_TYPES) {
    const q = qualityOf(mediaType, ranges);
    if (q > 0 && (!chosen || q > chosen.q)) chosen = { format, q };
  }
  return chosen ? { ok: true, format: chosen.format } : { ok: false, supported: TRANSCRIPT_MEDIA_TYPES.map(([, mediaType]) => mediaType) };
}
