import type { PiiSpan } from './pii-categories.js';

/** A character of a written address's local part ("john.smith+tag"). */
const LOCAL_PART_CHARACTER = /[A-Za-z0-9._%+-]/;
/** A written domain right after the "@": labels joined by dots, the last one letters ("mail.example.co.uk"). */
const WRITTEN_DOMAIN = /[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/y;
/** The longest domain name there is (RFC 1035): no address's domain reaches further from its "@". */
const LONGEST_DOMAIN = 253;
const TOP_LEVEL_DOMAINS = new Set([
  'com', 'org', 'net', 'edu', 'gov', 'io', 'co', 'us', 'uk', 'ca', 'de', 'fr', 'es', 'it', 'nl', 'ie', 'au', 'info', 'biz', 'me', 'ai', 'app', 'dev', 'mil',
]);
/** Said between the parts of an address: "john dot smith", "mary underscore lee", "bob dash jones". */
const CONNECTORS = new Set(['dot', 'period', 'underscore', 'dash', 'hyphen', '.', '_', '-']);
const DOMAIN_CONNECTORS = new Set(['dot', 'period', '.', 'dash', 'hyphen', '-']);
/** Words that end the local part when walking back from "at": they introduce the address, they are not in it. */
const NOT_LOCAL = new Set([
  'is', 'it', 'its', "it's", 'email', 'e', 'mail', 'address', 'me', 'my', 'to', 'at', 'was', 'use', 'try', 'send', 'that', "that's", 'thats', 'under', 'reach', 'and',
  'or', 'the', 'from', 'be', 'should', 'would', 'could', 'you', 'your', 'i', "i'm", 'am', 'so', 'yes', 'yeah', 'ok', 'okay', 'sure', 'on', 'file', 'account', 'of', 'with',
]);

interface Word {
  text: string;
  lower: string;
  start: number;
  end: number;
}

function words(text: string): Word[] {
  return [...text.matchAll(/[A-Za-z0-9]+(?:'[A-Za-z]+)?|[._@-]/g)].map((m) => ({ text: m[0], lower: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length }));
}

const isLabel = (w: Word | undefined) => w !== undefined && /^[a-z0-9]+$/i.test(w.text);

/** The end (exclusive, in words) of a spoken domain after "at", or undefined when none follows. */
function domainEnd(list: Word[], from: number, text: string): number | undefined {
  let i = from;
  if (!isLabel(list[i])) return undefined;
  let end: number | undefined;
  while (isLabel(list[i])) {
    const connector = list[i + 1];
    if (connector && DOMAIN_CONNECTORS.has(connector.lower) && isLabel(list[i + 2]) && adjacent(text, list[i], list[i + 2])) {
      if (connector.lower === 'dot' || connector.lower === 'period' || connector.lower === '.') {
        if (TOP_LEVEL_DOMAINS.has(list[i + 2].lower)) end = i + 3;
      }
      i += 2;
    } else break;
  }
  return end;
}

/** Whether only spaces or the connector lie between two words (no sentence break). */
function adjacent(text: string, a: Word, b: Word): boolean {
  return !/[,;:!?]|\.\s/.test(text.slice(a.end, b.start).replace(/^\s*\.\s*$/, ''));
}

/** The first word of the local part before the "at" at `at`, or undefined when there is none. */
function localStart(list: Word[], at: number): number | undefined {
  let i = at - 1;
  const spelledLetter = (w: Word | undefined) => isLabel(w) && w!.text.length === 1;
  if (!isLabel(list[i])) return undefined;
  // "I" or "a" is a word unless it ends a spelled-out name ("w e i at…").
  if (NOT_LOCAL.has(list[i].lower) && !(spelledLetter(list[i]) && spelledLetter(list[i - 1]))) return undefined;
  const spelled = list[i].text.length === 1;
  while (i > 0) {
    const before = list[i - 1];
    if (CONNECTORS.has(before.lower) && isLabel(list[i - 2]) && !NOT_LOCAL.has(list[i - 2].lower)) i -= 2;
    else if (spelled && isLabel(before) && before.text.length === 1 && before.lower !== 'i' && before.lower !== 'a') i -= 1;
    else break;
  }
  return i;
}

/**
 * Written addresses ("mary_lee@outlook.com"), found from each "@": the local part walked back from it, the domain
 * read after it within the longest a domain can be. One unanchored regular expression for the whole address would
 * try every start in a long run of letters or digits and walk the run from each: quadratic, seconds for one long
 * transcript segment. This finds what that expression finds, scanning left to right, in one pass.
 */
export function findWrittenEmails(text: string): PiiSpan[] {
  const spans: PiiSpan[] = [];
  let scanned = 0;
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    // A local part never holds an "@", so each walk back stops at the previous one: every character is walked once.
    let start = at;
    while (start > scanned && LOCAL_PART_CHARACTER.test(text[start - 1])) start--;
    if (start === at) continue;
    WRITTEN_DOMAIN.lastIndex = 0;
    const domain = WRITTEN_DOMAIN.exec(text.slice(at + 1, at + 1 + LONGEST_DOMAIN));
    if (!domain) continue;
    scanned = at + 1 + domain[0].length;
    spans.push({ start, end: scanned, category: 'email' });
  }
  return spans;
}

export function findEmails(text: string): PiiSpan[] {
  const spans = findWrittenEmails(text);
  const list = words(text);
  list.forEach((word, at) => {
    if (word.lower !== 'at' && word.lower !== '@') return;
    const sign = list[at + 1]?.lower === 'sign' || list[at + 1]?.lower === 'symbol' ? 1 : 0;
    const end = domainEnd(list, at + 1 + sign, text);
    if (end === undefined) return;
    const start = localStart(list, at);
    if (start === undefined) return;
    spans.push({ start: list[start].start, end: list[end - 1].end, category: 'email' });
  });
  return spans;
}
