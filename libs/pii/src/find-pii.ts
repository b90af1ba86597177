import { findPostalAddresses } from './addresses.rules.js';
import { findDatesOfBirth } from './dates.rules.js';
import { findEmails } from './email.rules.js';
import { findCardAndSsnNumbers, findIbans, findIpAddresses, findPhoneNumbers } from './numbers.rules.js';
import { PII_CATEGORIES, redactionLabel, type PiiCategory, type PiiSpan } from './pii-categories.js';
import { normaliseSpokenDigits } from './spoken-digits.js';

/**
 * Every piece of personal data of the given categories (default: all) in a text as speech recognition writes it,
 * as non-overlapping spans on that text, in order. Where two detectors claim the same characters, the category
 * earlier in PII_CATEGORIES wins, then the longer span.
 */
export function findPii(text: string, categories: readonly PiiCategory[] = PII_CATEGORIES): PiiSpan[] {
  const wanted = new Set(categories);
  const normalised = normaliseSpokenDigits(text);
  const candidates = [
    ...findEmails(text),
    ...findIbans(text, normalised),
    ...findIpAddresses(text, normalised),
    ...findCardAndSsnNumbers(text, normalised),
    ...findPhoneNumbers(text, normalised),
    ...findDatesOfBirth(text),
    ...findPostalAddresses(text),
  ].filter((span) => span.end > span.start);
  const rank = (span: PiiSpan) => PII_CATEGORIES.indexOf(span.category);
  candidates.sort((a, b) => rank(a) - rank(b) || b.end - b.start - (a.end - a.start) || a.start - b.start);
  const kept: PiiSpan[] = [];
  for (const span of candidates) {
    if (kept.some((k) => span.start < k.end && k.start < span.end)) continue;
    kept.push(span);
  }
  return kept.filter((span) => wanted.has(span.category)).sort((a, b) => a.start - b.start);
}

/** The text with every span of the given categories replaced by its label (`[CREDIT_CARD]`…); the rest unchanged. */
export function redactPii(text: string, categories: readonly PiiCategory[] = PII_CATEGORIES): string {
  let out = '';
  let at = 0;
  for (const span of findPii(text, categories)) {
    out += text.slice(at, span.start) + redactionLabel(span.category);
    at = span.end;
  }
  return out + text.slice(at);
}
