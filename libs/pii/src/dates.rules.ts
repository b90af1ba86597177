import type { PiiSpan } from './pii-categories.js';

const MONTH = '(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\\.?';
const UNIT = '(?:one|two|three|four|five|six|seven|eight|nine)';
const TEEN = '(?:ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)';
const TENS = '(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)';
const ORDINAL_UNIT = '(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)';
const ORDINAL_WORD = `(?:(?:twenty|thirty)[- ]${ORDINAL_UNIT}|${ORDINAL_UNIT}|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth)`;
const DAY = `(?:\\d{1,2}(?:st|nd|rd|th)?|${ORDINAL_WORD})`;
const TWO_DIGITS = `(?:${TENS}(?:[- ]${UNIT})?|${TEEN}|oh[- ]${UNIT})`;
const YEAR = `(?:(?:19|20)\\d{2}|(?:nineteen|twenty)[- ]${TWO_DIGITS}|two thousand(?:(?: and)? (?:${TWO_DIGITS}|${UNIT}))?|'\\d{2})`;

const DATE = new RegExp(
  [
    `\\b${MONTH}\\s+(?:the\\s+)?${DAY},?\\s+(?:of\\s+)?${YEAR}\\b`,
    `\\b(?:the\\s+)?${DAY}\\s+(?:of\\s+)?${MONTH},?\\s+${YEAR}\\b`,
    '\\b\\d{1,2}[/.-]\\d{1,2}[/.-](?:\\d{4}|\\d{2})\\b',
    '\\b(?:19|20)\\d{2}-\\d{2}-\\d{2}\\b',
  ].join('|'),
  'gi',
);
/** A date is a date of birth only when the caller says so just before it, or right after it. */
const BIRTH_BEFORE = /(?:date of birth|birth ?date|birthday(?! (?:gift|party|card|present|cake|sale))|\bborn\b|\bd\.?\s?o\.?\s?b\b|\bdob\b)[^.!]{0,50}$/i;
const BIRTH_AFTER = /^[^.!?]{0,20}\b(?:birthday|date of birth|when (?:i|he|she) was born|born)\b/i;

export function findDatesOfBirth(text: string): PiiSpan[] {
  const spans: PiiSpan[] = [];
  for (const m of text.matchAll(DATE)) {
    const before = text.slice(Math.max(0, m.index - 80), m.index);
    const after = text.slice(m.index + m[0].length, m.index + m[0].length + 40);
    if (BIRTH_BEFORE.test(before) || BIRTH_AFTER.test(after)) spans.push({ start: m.index, end: m.index + m[0].length, category: 'date_of_birth' });
  }
  return spans;
}
