// The core build with its metadata as a module: the default entry imports a JSON file, which jest's ESM loader warns about.
import { findNumbers } from 'libphonenumber-js/core';
import metadata from 'libphonenumber-js/min/metadata';
import { countrySpecs, isValidIBAN } from 'ibantools';
import type { PiiSpan } from './pii-categories.js';
import { sourceRange, type NormalisedText } from './spoken-digits.js';

/** Digits with what may separate them when written or said in groups: spaces, pauses, dashes, dots, brackets. */
const DIGIT_RUN = /\(?\d(?:[\d ().\-/]*\d)?/g;
/** What tells a nine-digit number is a social security number when it is not written 3-2-4. */
const SSN_CONTEXT = /social|\bssn\b|\bs\s?s\s?n\b|security number|tax (?:id|payer)|\bitin\b/i;
const SSN_CONTEXT_WINDOW = 80;
/** Or says so right after it: "…, that is my social". */
const SSN_CONTEXT_AFTER = /^[^.!?]{0,20}\b(?:social|ssn|security number)\b/i;

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Issuer prefixes of the card networks (Visa, Mastercard, Amex, Discover, Diners, JCB, UnionPay, Maestro). */
const CARD_PREFIX = /^(4|5[1-5]|2[2-7]|3[47]|3[0689]|35|6[0-9]|50|5[6-8])/;

export function isCardNumber(digits: string): boolean {
  return digits.length >= 13 && digits.length <= 19 && CARD_PREFIX.test(digits) && luhnValid(digits);
}

/** The SSA's rules: no area 000, 666 or 900–999, no group 00, no serial 0000. */
export function isSocialSecurityNumber(digits: string): boolean {
  if (!/^\d{9}$/.test(digits)) return false;
  const area = digits.slice(0, 3);
  return area !== '000' && area !== '666' && area[0] !== '9' && digits.slice(3, 5) !== '00' && digits.slice(5) !== '0000';
}

interface Group {
  digits: string;
  start: number;
  end: number;
}

function groupsOf(run: string, offset: number): Group[] {
  return [...run.matchAll(/\d+/g)].map((m) => ({ digits: m[0], start: offset + m.index, end: offset + m.index + m[0].length }));
}

function classifyDigits(groups: Group[], contextBefore: string, contextAfter: string): 'credit_card' | 'ssn' | undefined {
  const digits = groups.map((g) => g.digits).join('');
  if (isCardNumber(digits)) return 'credit_card';
  if (!isSocialSecurityNumber(digits)) return undefined;
  const shaped = groups.map((g) => g.digits.length).join('-') === '3-2-4';
  return shaped || SSN_CONTEXT.test(contextBefore) || SSN_CONTEXT_AFTER.test(contextAfter) ? 'ssn' : undefined;
}

/** The longest a card number is; a social security number is nine digits. */
const MAX_DIGITS = 19;
const MIN_DIGITS = 9;

/**
 * The windows of consecutive groups that could hold a card or social security number (9 to 19 digits), the most
 * groups first: linear in the groups, however long a run of numbers a transcript holds.
 */
function candidateWindows(groups: Group[]): { from: number; to: number }[] {
  const windows: { from: number; to: number }[] = [];
  for (let from = 0; from < groups.length; from++) {
    let digits = 0;
    for (let to = from; to < groups.length; to++) {
      digits += groups[to].digits.length;
      if (digits > MAX_DIGITS) break;
      if (digits >= MIN_DIGITS) windows.push({ from, to });
    }
  }
  return windows.sort((a, b) => b.to - b.from - (a.to - a.from) || a.from - b.from);
}

/**
 * Card and social security numbers in the runs of digits of the rewritten text. A run is tried whole, then by its
 * groups (what the caller paused between), longest first, so "…one one one one, expiry twelve twenty-eight" or
 * a card number read straight after an order number is still found.
 */
export function findCardAndSsnNumbers(original: string, normalised: NormalisedText): PiiSpan[] {
  const spans: PiiSpan[] = [];
  for (const match of normalised.text.matchAll(DIGIT_RUN)) {
    const groups = groupsOf(match[0], match.index);
    const found: { from: number; to: number; category: 'credit_card' | 'ssn' }[] = [];
    for (const { from, to } of candidateWindows(groups)) {
      if (found.some((f) => from <= f.to && to >= f.from)) continue;
      const start = sourceRange(normalised, groups[from].start, groups[from].start + 1).start;
      const contextBefore = original.slice(Math.max(0, start - SSN_CONTEXT_WINDOW), start);
      const end = sourceRange(normalised, groups[to].end - 1, groups[to].end).end;
      const contextAfter = original.slice(end, end + 40);
      const category = classifyDigits(groups.slice(from, to + 1), contextBefore, contextAfter);
      if (category) found.push({ from, to, category });
    }
    for (const f of found) {
      const range = sourceRange(normalised, groups[f.from].start, groups[f.to].end);
      spans.push({ ...range, category: f.category });
    }
  }
  return spans;
}

/** Ten digits that the caller named as another kind of number ("order number 506…") are not a phone number. */
const NAMED_NUMBER_BEFORE = /\b(?:order|account|invoice|case|ticket|tracking|reference|ref|policy|confirmation|member|customer|serial|claim)\s*(?:number|no\.?|#|id)?\s*(?:is|was|:)?\s*$/i;

/** Phone numbers by libphonenumber-js in the rewritten text (valid numbers only), reported on the original. */
export function findPhoneNumbers(original: string, normalised: NormalisedText): PiiSpan[] {
  const spans: PiiSpan[] = [];
  for (const country of ['US', 'GB'] as const) {
    for (const found of findNumbers(normalised.text, { defaultCountry: country, v2: true }, metadata)) {
      if (!found.number.isValid()) continue;
      const start = normalised.sourceStart[found.startsAt];
      if (NAMED_NUMBER_BEFORE.test(original.slice(Math.max(0, start - 40), start))) continue;
      // A UK number without its country code starts with its trunk 0; anything else is a US reading of it.
      if (country === 'GB' && !/^\s*(\+|0)/.test(normalised.text.slice(found.startsAt, found.endsAt))) continue;
      spans.push({ ...sourceRange(normalised, found.startsAt, found.endsAt), category: 'phone_number' });
    }
  }
  return spans;
}

const IP_V4 = /(?<![\d.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?![\d]|\.\d)/g;
const IP_V6 = /(?<![\w:])(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}(?![\w:])|(?<![\w:])(?:[0-9a-f]{1,4}:){1,6}:(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,5})?(?![\w:])/gi;

export function findIpAddresses(original: string, normalised: NormalisedText): PiiSpan[] {
  const spans: PiiSpan[] = [];
  for (const m of normalised.text.matchAll(IP_V4)) {
    if (m.slice(1, 5).every((part) => Number(part) <= 255 && !/^0\d/.test(part))) {
      spans.push({ ...sourceRange(normalised, m.index, m.index + m[0].length), category: 'ip_address' });
    }
  }
  for (const m of original.matchAll(IP_V6)) {
    if (/\d/.test(m[0]) && m[0].length >= 6) spans.push({ start: m.index, end: m.index + m[0].length, category: 'ip_address' });
  }
  return spans;
}

/**
 * IBANs written or spelled out ("G B eight two W E S T one two…"): from a two-letter country code at a word's
 * start, the letters and digits that follow, gaps ignored, up to the country's IBAN length, kept when the
 * ISO 7064 check digits (ibantools) agree.
 */
export function findIbans(original: string, normalised: NormalisedText): PiiSpan[] {
  const text = normalised.text;
  const spans: PiiSpan[] = [];
  let i = 0;
  while (i < text.length) {
    if (!/[A-Za-z]/.test(text[i]) || (i > 0 && /[A-Za-z0-9]/.test(text[i - 1]))) {
      i++;
      continue;
    }
    const found = ibanAt(original, normalised, i);
    if (found) {
      spans.push({ ...sourceRange(normalised, i, found), category: 'iban' });
      i = found;
    } else i++;
  }
  return spans;
}

/** At most this many spelled "O"s are tried both as the letter and as zero. */
const MAX_AMBIGUOUS_O = 4;

function ibanAt(original: string, normalised: NormalisedText, start: number): number | undefined {
  const text = normalised.text;
  const chars: string[] = [];
  /** Positions in `chars` of a zero that was said as the single letter "O": it may be the letter. */
  const spelledO: number[] = [];
  let length = 34;
  for (let j = start; j < text.length && chars.length < length; j++) {
    const char = text[j];
    if (/[A-Za-z0-9]/.test(char)) {
      if (char === '0' && /^o$/i.test(original.slice(normalised.sourceStart[j], normalised.sourceEnd[j]))) spelledO.push(chars.length);
      chars.push(char.toUpperCase());
      if (chars.length === 2) {
        const spec = countrySpecs[chars.join('')];
        if (!spec?.chars) return undefined;
        length = spec.chars;
      }
      if (chars.length === 4 && !/^\d\d$/.test(chars.slice(2).join(''))) return undefined;
      if (chars.length === length) return anyReadingValid(chars, spelledO) ? j + 1 : undefined;
    } else if (!/[\s\-,]/.test(char)) return undefined;
  }
  return undefined;
}

function anyReadingValid(chars: string[], spelledO: number[]): boolean {
  const ambiguous = spelledO.slice(0, MAX_AMBIGUOUS_O);
  for (let mask = 0; mask < 1 << ambiguous.length; mask++) {
    const reading = [...chars];
    ambiguous.forEach((position, bit) => {
      if (mask & (1 << bit)) reading[position] = 'O';
    });
    if (isValidIBAN(reading.join(''))) return true;
  }
  return false;
}
