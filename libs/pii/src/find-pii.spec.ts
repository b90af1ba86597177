import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { findWrittenEmails } from './email.rules.js';
import { findPii, redactPii } from './find-pii.js';
import { isCardNumber, isSocialSecurityNumber, luhnValid } from './numbers.rules.js';
import { PII_CATEGORIES, type PiiCategory } from './pii-categories.js';
import { normaliseSpokenDigits, sourceRange } from './spoken-digits.js';

/** The categories and texts found, as pairs: what a reader checks. */
const found = (text: string, categories?: PiiCategory[]) => findPii(text, categories).map((s) => [s.category, text.slice(s.start, s.end)]);

describe('normaliseSpokenDigits', () => {
  it.each([
    ['four one one one, one one one one', '4111 1111'],
    ['double five, triple two', '55 222'],
    ['four one five, oh one three two', '415 0132'],
    ['two five oh oh', '2500'],
    ['eight hundred five five five', '800555'],
    ['one hundred twenty three', '123'],
    ['twenty-one', '21'],
    ['one nine two dot one six eight', '192.168'],
    ['plus four four', '+44'],
    ['seven one eight... five nine five', '718 595'],
    ['four five five six, then seven three, um, seven five', '4556 73 75'],
  ])('reads "%s" as %s', (spoken, digits) => {
    expect(normaliseSpokenDigits(spoken).text).toBe(digits);
  });

  it('leaves words that only look like digits alone: "oh" as an exclamation, "dot com", one as a pronoun in a sentence', () => {
    expect(normaliseSpokenDigits('oh, I see').text).toBe('oh, I see');
    expect(normaliseSpokenDigits('acme dot com').text).toBe('acme dot com');
    expect(normaliseSpokenDigits('written 415-555-0132').text).toBe('written 415-555-0132');
    expect(normaliseSpokenDigits('um, then we talked').text).toBe('um, then we talked');
  });

  it('maps every rewritten character back to the words it came from', () => {
    const original = 'call four one five, double five';
    const normalised = normaliseSpokenDigits(original);
    const at = normalised.text.indexOf('55');
    expect(original.slice(normalised.sourceStart[at], normalised.sourceEnd[at])).toBe('double five');
    const range = sourceRange(normalised, normalised.text.indexOf('415'), normalised.text.length);
    expect(original.slice(range.start, range.end)).toBe('four one five, double five');
  });
});

describe('card and social security numbers', () => {
  it('checks Luhn, the length and the issuer prefix', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(isCardNumber('378282246310005')).toBe(true);
    expect(isCardNumber('4111111111111112')).toBe(false);
    expect(isCardNumber('9111111111111111')).toBe(false); // Luhn-valid, but no card network issues it
  });

  it('follows the SSA rules for numbers never issued', () => {
    expect(isSocialSecurityNumber('078051120')).toBe(true);
    for (const never of ['000123456', '666123456', '912345678', '123004567', '123450000']) expect(isSocialSecurityNumber(never)).toBe(false);
  });

  it.each([
    ['my card is four one one one, one one one one, one one one one, one one one one, thanks', 'four one one one, one one one one, one one one one, one one one one'],
    ['Visa 4111-1111-1111-1111 expiring 12/28', '4111-1111-1111-1111'],
    ['four triple one, one triple one, one one one one, one one one one', 'four triple one, one triple one, one one one one, one one one one'],
    ['amex three seven eight two, eight two two four six three, one oh oh oh five', 'three seven eight two, eight two two four six three, one oh oh oh five'],
  ])('finds the card in "%s"', (text, card) => {
    expect(found(text)).toEqual([['credit_card', card]]);
  });

  it('finds a social security number written 3-2-4, or said with "social" before or after it, and not a bare nine digits', () => {
    expect(found('SSN 078-05-1120')).toEqual([['ssn', '078-05-1120']]);
    expect(found('my social is five two one four four seven seven oh two')).toEqual([['ssn', 'five two one four four seven seven oh two']]);
    expect(found('it is 521447702, that is my social')).toEqual([['ssn', '521447702']]);
    expect(found('my order number is 521447702')).toEqual([]);
  });
});

describe('phone numbers', () => {
  it.each([
    ['call me at (415) 555-0132', '(415) 555-0132'],
    ['it is four one five, double five five, oh one three two', 'four one five, double five five, oh one three two'],
    ['eight hundred, five five five, one two one two', 'eight hundred, five five five, one two one two'],
    ['ring me on +44 20 7946 0958', '+44 20 7946 0958'],
    ['plus four four, seven nine one one, one two three, four five six', 'plus four four, seven nine one one, one two three, four five six'],
    ['my mobile is 07911 123456', '07911 123456'],
  ])('finds the number in "%s"', (text, number) => {
    expect(found(text)).toEqual([['phone_number', number]]);
  });

  it('does not take an order or account number of ten digits for one', () => {
    expect(found('my order number is 5064559959')).toEqual([]);
    expect(found('account number 4155550132')).toEqual([]);
  });
});

describe('emails, IBANs, IP addresses, dates of birth, postal addresses', () => {
  it.each([
    ['my email is john dot smith at gmail dot com', 'john dot smith at gmail dot com'],
    ['email me at mary_lee@outlook.com please', 'mary_lee@outlook.com'],
    ['it is j o h n at example dot org', 'j o h n at example dot org'],
    ['it is w e i at aol dot com', 'w e i at aol dot com'],
    ['tom underscore lee at hotmail dot co dot uk', 'tom underscore lee at hotmail dot co dot uk'],
  ])('finds the email in "%s"', (text, email) => {
    expect(found(text)).toEqual([['email', email]]);
  });

  it('does not take "at the office" or a website for an email', () => {
    expect(found('I will be at the office at noon, see acme dot com')).toEqual([]);
  });

  it('finds IBANs written, grouped or spelled out, with the spelled letter O read either way, and only with valid check digits', () => {
    expect(found('IBAN GB29 NWBK 6016 1331 9268 19')).toEqual([['iban', 'GB29 NWBK 6016 1331 9268 19']]);
    expect(found('it is N L nine one A B N A oh four one seven one six four three oh oh')).toEqual([['iban', 'N L nine one A B N A oh four one seven one six four three oh oh']]);
    expect(found('G B nine one N W B K 6016 1331 9268 19')).toEqual([]);
  });

  it('finds IPv4 addresses written or said, and IPv6, not version numbers', () => {
    expect(found('my IP is one nine two dot one six eight dot one dot twenty')).toEqual([['ip_address', 'one nine two dot one six eight dot one dot twenty']]);
    expect(found('the server 10.0.0.12 and 2001:db8::8a2e:370:7334')).toEqual([['ip_address', '10.0.0.12'], ['ip_address', '2001:db8::8a2e:370:7334']]);
    expect(found('the app is on version 3.2.11')).toEqual([]);
  });

  it('finds a date only when it is a birth date, in the forms callers say it', () => {
    expect(found('my date of birth is March fourteenth, nineteen eighty-five')).toEqual([['date_of_birth', 'March fourteenth, nineteen eighty-five']]);
    expect(found('and your date of birth? Caller: 03/14/1985')).toEqual([['date_of_birth', '03/14/1985']]);
    expect(found('the ninth of November, nineteen eighty-nine, that is my birthday')).toEqual([['date_of_birth', 'the ninth of November, nineteen eighty-nine']]);
    expect(found('the appointment is March 14, 2025')).toEqual([]);
    expect(found('the birthday gift arrived on June 3, 2026')).toEqual([]);
  });

  it('finds street addresses with a house number, written or said, not a street named without one', () => {
    expect(found('I live at 1234 Elm Street, Springfield, IL 62704')).toEqual([['postal_address', '1234 Elm Street, Springfield, IL 62704']]);
    expect(found('it is twelve thirty-four Oak Avenue, apartment five')).toEqual([['postal_address', 'twelve thirty-four Oak Avenue, apartment five']]);
    expect(found('mail it to P.O. Box 1142')).toEqual([['postal_address', 'P.O. Box 1142']]);
    expect(found('our Main Street store had it, the branch on Fifth Avenue did not')).toEqual([]);
  });
});

describe('redactPii', () => {
  it('replaces each span with its category in capitals and keeps everything around it', () => {
    expect(redactPii('Caller: card four one one one, one one one one, one one one one, one one one one, email john at gmail dot com. Thanks!')).toBe(
      'Caller: card [CREDIT_CARD], email [EMAIL]. Thanks!',
    );
  });

  it('redacts only the categories asked for', () => {
    const text = 'call 415-555-0132 or write to ann@example.com';
    expect(redactPii(text, ['email'])).toBe('call 415-555-0132 or write to [EMAIL]');
    expect(redactPii(text, ['phone_number'])).toBe('call [PHONE_NUMBER] or write to ann@example.com');
  });

  it('leaves text without personal data unchanged', () => {
    const text = 'Agent: your order 4829 1038 2291 ships Monday, the total is $24.99, we close at 5:30 pm.';
    expect(redactPii(text)).toBe(text);
  });
});

/** A card number as the detector reads one: a run of 13–19 digits (spaces or dashes between) with no digit glued on either side; a longer run is another kind of number. */
const LUHN_SEQUENCE = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![ -]?\d)/g;
const cardDigits = fc
  .tuple(fc.constantFrom('4', '51', '37', '6011'), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 11, maxLength: 14 }))
  .map(([prefix, rest]) => {
    const body = prefix + rest.join('');
    for (let check = 0; check < 10; check++) if (luhnValid(body + check)) return body + check;
    return body;
  });
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const filler = fc.constantFrom('Caller: ', 'Agent: okay, ', 'my card is ', 'the order 4829 1038 is ', 'email bob at acme dot com and ', 'thanks, ', '');
const cardAsSaid = cardDigits.chain((digits) =>
  fc.constantFrom(digits, digits.replace(/(\d{4})(?=\d)/g, '$1 '), [...digits].map((d) => WORDS[Number(d)]).join(' ')),
);
const utterance = fc.tuple(filler, cardAsSaid, filler, fc.string({ maxLength: 30 })).map((parts) => parts.join(''));

describe('long transcripts', () => {
  it('stays linear in a long run of numbers (a read-out list, a spreadsheet pasted into a chat)', () => {
    const written = Array.from({ length: 5000 }, (_, i) => String(i % 10)).join(' ');
    const spoken = Array.from({ length: 5000 }, (_, i) => ['one', 'two', 'oh', 'five'][i % 4]).join(', ');
    const started = performance.now();
    findPii(written);
    findPii(spoken);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('stays linear in a long run of letters or digits without an "@" (one regular expression for a whole address took seconds)', () => {
    const segment = `${'x'.repeat(100_000)} ${'4'.repeat(100_000)} ${'a.b-'.repeat(25_000)} write to ${'m'.repeat(50_000)}@example.com`;
    const started = performance.now();
    const emails = findPii(segment).filter((span) => span.category === 'email');
    // Every detector over these 400,000 characters: ~0.4 s here; one unanchored expression for a whole address needs
    // ~26 s for the emails alone.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(emails.map((span) => segment.slice(span.start, span.end))).toEqual([`${'m'.repeat(50_000)}@example.com`]);
  });
});

describe('written emails', () => {
  // The single expression the finder replaced, for every text whose domains are of a possible length.
  const wholeAddress = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
  const addressLike = fc.array(fc.constantFrom('a', 'Z', '7', '.', '@', '-', '_', '%', '+', ' ', ',', 'com', 'co', 'x1'), { maxLength: 40 }).map((parts) => parts.join(''));

  it('finds what one regular expression for the whole address finds, in the same places', () => {
    fc.assert(
      fc.property(addressLike, (text) => {
        const expected = [...text.matchAll(wholeAddress)].map((m) => [m.index, m.index + m[0].length]);
        expect(findWrittenEmails(text).map((span) => [span.start, span.end])).toEqual(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it('reads a domain no further than the longest a domain can be (253 characters)', () => {
    expect(findWrittenEmails(`me@${'d'.repeat(300)}.com`)).toEqual([]);
    const longest = `me@${'d'.repeat(249)}.com`;
    expect(findWrittenEmails(longest)).toEqual([{ start: 0, end: longest.length, category: 'email' }]);
  });
});

describe('properties', () => {
  it('redaction is idempotent, spans never overlap and lie in order inside the text', () => {
    fc.assert(
      fc.property(fc.oneof(utterance, fc.string({ maxLength: 120 })), (text) => {
        const spans = findPii(text);
        spans.forEach((span, i) => {
          expect(span.start).toBeGreaterThanOrEqual(i === 0 ? 0 : spans[i - 1].end);
          expect(span.end).toBeLessThanOrEqual(text.length);
          expect(PII_CATEGORIES).toContain(span.category);
        });
        const once = redactPii(text);
        expect(redactPii(once)).toBe(once);
      }),
      { numRuns: 300 },
    );
  });

  it('redacted output holds no Luhn-valid card number, written or said', () => {
    fc.assert(
      fc.property(utterance, (text) => {
        const redacted = normaliseSpokenDigits(redactPii(text)).text;
        for (const m of redacted.matchAll(LUHN_SEQUENCE)) expect(isCardNumber(m[0].replace(/\D/g, ''))).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
