#!/usr/bin/env node
// Writes corpus.jsonl beside it: call-transcript lines (caller and agent) in the forms speech recognition
// produces, each piece of personal data labelled with its category and offsets, and lines with none that look
// like it (order numbers, prices, times, dates that are not births, confirmation codes, counts, businesses'
// streets). Deterministic: the same seed writes the same file, so the committed corpus can be regenerated and
// reviewed as a diff. `node libs/pii/corpus/generate.mjs`
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ibantools from 'ibantools';
import { MIXED, PHRASINGS as T } from './phrasings.mjs';

let seed = 20261127;
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (list) => list[Math.floor(random() * list.length)];
const digit = () => String(Math.floor(random() * 10));
const digits = (n) => Array.from({ length: n }, digit).join('');
const between = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const spokenDigit = (d, zero = 'oh') => (d === '0' ? zero : WORDS[Number(d)]);
/** Digits read one by one, "double"/"triple" where a digit repeats (sometimes), groups separated by a pause. */
function speakDigits(groups, { doubles = random() < 0.4, zero = pick(['oh', 'zero', 'oh']), pause = pick([', ', ', ', ' ', '... ']) } = {}) {
  return groups
    .map((group) => {
      const out = [];
      for (let i = 0; i < group.length; ) {
        let run = 1;
        while (group[i + run] === group[i] && run < 3) run++;
        if (doubles && run >= 2) {
          out.push(`${run === 3 ? 'triple' : 'double'} ${spokenDigit(group[i], zero)}`);
          i += run;
        } else {
          out.push(spokenDigit(group[i], zero));
          i++;
        }
      }
      return out.join(' ');
    })
    .join(pause);
}
const chunk = (s, sizes) => {
  const out = [];
  let at = 0;
  for (const size of sizes) {
    out.push(s.slice(at, at + size));
    at += size;
  }
  return out.filter(Boolean);
};

function luhnComplete(prefix, length) {
  const body = prefix + digits(length - prefix.length - 1);
  for (let check = 0; check < 10; check++) {
    const candidate = body + check;
    let sum = 0;
    for (let i = 0; i < candidate.length; i++) {
      let d = Number(candidate[candidate.length - 1 - i]);
      if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
    }
    if (sum % 10 === 0) return candidate;
  }
  throw new Error('unreachable');
}

// ---- values: each returns { text, category } (category null for look-alikes that are not personal data) ----
function card() {
  const [prefix, length] = pick([['4', 16], ['4', 16], ['51', 16], ['55', 16], ['2221', 16], ['37', 15], ['34', 15], ['6011', 16], ['65', 16], ['4', 13], ['35', 16]]);
  const number = luhnComplete(prefix, length);
  const groups = length === 15 ? chunk(number, [4, 6, 5]) : chunk(number, [4, 4, 4, 4]);
  const form = pick(['spaced', 'spoken', 'spoken', 'spoken', 'dashed', 'compact', 'spokenFlat', 'mixed']);
  const text = {
    spaced: groups.join(' '),
    dashed: groups.join('-'),
    compact: number,
    spoken: speakDigits(groups),
    spokenFlat: speakDigits([number], { doubles: false }),
    mixed: `${speakDigits(groups.slice(0, 2))}, ${groups.slice(2).join(' ')}`,
  }[form];
  return { text, category: 'credit_card' };
}

const AREA_CODES = ['212', '415', '617', '312', '206', '303', '512', '646', '718', '202', '305', '404', '213', '702', '503', '919', '614', '480'];
function phone() {
  const area = pick(AREA_CODES);
  const exchange = String(between(2, 9)) + digits(2);
  const line = digits(4);
  const form = pick(['paren', 'dashed', 'dotted', 'plusOne', 'spoken', 'spoken', 'spoken', 'spokenOne', 'tollFree', 'uk', 'ukSpoken', 'compact']);
  if (form === 'tollFree') return { text: `${pick(['eight hundred', 'eight eight eight', 'eight seven seven'])}, ${speakDigits([exchange, line])}`, category: 'phone_number' };
  if (form === 'uk') return { text: pick(['+44 20 7946 0958', '+44 161 496 0753', '020 7946 0321', '0161 496 0812', '+44 7911 123456']), category: 'phone_number' };
  if (form === 'ukSpoken') return { text: pick(['oh two oh, seven nine four six, oh three two one', 'plus four four, seven nine one one, one two three, four five six']), category: 'phone_number' };
  const text = {
    paren: `(${area}) ${exchange}-${line}`,
    dashed: `${area}-${exchange}-${line}`,
    dotted: `${area}.${exchange}.${line}`,
    plusOne: `+1 ${area} ${exchange} ${line}`,
    compact: `${area}${exchange}${line}`,
    spoken: speakDigits([area, exchange, line]),
    spokenOne: `one, ${speakDigits([area, exchange, line])}`,
  }[form];
  return { text, category: 'phone_number' };
}

const FIRST = ['john', 'mary', 'ahmed', 'lucia', 'wei', 'olga', 'james', 'priya', 'tom', 'fatima', 'diego', 'anna', 'kevin', 'sarah', 'mike', 'lena'];
const LAST = ['smith', 'garcia', 'nguyen', 'okafor', 'kowalski', 'patel', 'brown', 'lee', 'murphy', 'rossi', 'hughes', 'khan'];
const DOMAINS = [['gmail', 'com'], ['yahoo', 'com'], ['outlook', 'com'], ['hotmail', 'com'], ['icloud', 'com'], ['aol', 'com'], ['comcast', 'net'], ['acme', 'io'], ['brightline', 'org'], ['proton', 'me'], ['btinternet', 'com'], ['state', 'edu']];
function email() {
  const first = pick(FIRST);
  const last = pick(LAST);
  const [domain, tld] = pick(DOMAINS);
  const number = random() < 0.25 ? String(between(1, 99)) : '';
  const form = pick(['written', 'spokenDot', 'spokenDot', 'spokenUnderscore', 'spokenPlain', 'spelled', 'atSign', 'couk', 'writtenCaps']);
  const text = {
    written: `${first}.${last}${number}@${domain}.${tld}`,
    writtenCaps: `${first[0].toUpperCase()}${first.slice(1)}${last[0].toUpperCase()}${number}@${domain}.${tld}`,
    spokenDot: `${first} dot ${last}${number ? ` ${number}` : ''} at ${domain} dot ${tld}`,
    spokenUnderscore: `${first} underscore ${last} at ${domain} dot ${tld}`,
    spokenPlain: `${first}${last} at ${domain} dot ${tld}`,
    spelled: `${first.split('').join(' ')} at ${domain} dot ${tld}`,
    atSign: `${first[0]}${last} at sign ${domain} dot ${tld}`,
    couk: `${first} dot ${last} at ${pick(['sky', 'virgin', 'talktalk'])} dot co dot uk`,
  }[form];
  return { text, category: 'email' };
}

function ssn() {
  let area = String(between(1, 899));
  if (area === '666') area = '667';
  const value = [area.padStart(3, '0'), String(between(1, 99)).padStart(2, '0'), String(between(1, 9999)).padStart(4, '0')];
  const form = pick(['dashed', 'spaced', 'spoken', 'spoken', 'spokenFlat']);
  const text = { dashed: value.join('-'), spaced: value.join(' '), spoken: speakDigits(value), spokenFlat: speakDigits([value.join('')], { doubles: false }) }[form];
  return { text, category: 'ssn', form };
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
function iban() {
  const country = pick(['GB', 'DE', 'FR', 'ES', 'NL', 'IE', 'IT']);
  const bban = {
    GB: () => pick(['NWBK', 'BARC', 'LOYD', 'MIDL']) + digits(14),
    IE: () => pick(['AIBK', 'BOFI']) + digits(14),
    DE: () => digits(18),
    FR: () => digits(23),
    ES: () => digits(20),
    NL: () => pick(['ABNA', 'INGB', 'RABO']) + digits(10),
    IT: () => LETTERS[between(0, 25)] + digits(10) + digits(12),
  }[country]();
  const value = ibantools.composeIBAN({ countryCode: country, bban });
  // A real IBAN passes its country's own BBAN check too (France's RIB key, Spain's control digits).
  if (!value || !ibantools.isValidIBAN(value)) return iban();
  const form = pick(['grouped', 'compact', 'spelled', 'spelled']);
  if (form === 'grouped') return { text: ibantools.friendlyFormatIBAN(value), category: 'iban' };
  if (form === 'compact') return { text: value, category: 'iban' };
  const spoken = value
    .split('')
    .map((c) => (/\d/.test(c) ? spokenDigit(c, pick(['zero', 'oh'])) : c))
    .join(' ');
  return { text: spoken, category: 'iban' };
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh', 'twelfth', 'thirteenth', 'fourteenth', 'fifteenth', 'sixteenth', 'seventeenth', 'eighteenth', 'nineteenth', 'twentieth', 'twenty-first', 'twenty-second', 'twenty-third', 'twenty-fourth', 'twenty-fifth', 'twenty-sixth', 'twenty-seventh', 'twenty-eighth'];
const TENS_WORDS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const TEEN_WORDS = ['ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
function spokenYear(year) {
  if (year >= 2000 && year < 2010) return `two thousand${year === 2000 ? '' : ` and ${WORDS[year - 2000]}`}`;
  const [hi, lo] = [Math.floor(year / 100), year % 100];
  const head = hi === 19 ? 'nineteen' : 'twenty';
  if (lo < 10) return `${head} oh ${WORDS[lo]}`;
  if (lo < 20) return `${head} ${TEEN_WORDS[lo - 10]}`;
  return `${head} ${TENS_WORDS[Math.floor(lo / 10)]}${lo % 10 ? `-${WORDS[lo % 10]}` : ''}`;
}
/** A date in one of the forms callers and recognisers use, for a year in [from, to]. */
function date(from, to) {
  const year = between(from, to);
  const month = between(1, 12);
  const day = between(1, 28);
  const form = pick(['monthDay', 'monthOrdinal', 'spokenFull', 'ordinalOf', 'slashes', 'iso', 'dayMonth']);
  return {
    monthDay: `${MONTHS[month - 1]} ${day}, ${year}`,
    monthOrdinal: `${MONTHS[month - 1]} ${day}${day % 10 === 1 && day !== 11 ? 'st' : day % 10 === 2 && day !== 12 ? 'nd' : day % 10 === 3 && day !== 13 ? 'rd' : 'th'} ${year}`,
    spokenFull: `${MONTHS[month - 1]} ${ORDINALS[day - 1]}, ${spokenYear(year)}`,
    ordinalOf: `the ${ORDINALS[day - 1]} of ${MONTHS[month - 1]}, ${spokenYear(year)}`,
    slashes: `${String(month).padStart(2, '0')}/${String(day).padStart(2, '0')}/${year}`,
    iso: `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
    dayMonth: `${day} ${MONTHS[month - 1]} ${year}`,
  }[form];
}
const dob = () => ({ text: date(1935, 2006), category: 'date_of_birth' });

const STREETS = ['Main', 'Oak', 'Maple', 'Elm', 'Cedar', 'Pine', 'Washington', 'Lake', 'Hillcrest', 'Park', 'Sunset', 'Highland', 'Fifth', '5th', '42nd', 'Martin Luther King', 'Green Valley', 'Baker', 'Church', 'Mill'];
const SUFFIXES = ['Street', 'Street', 'Avenue', 'Road', 'Drive', 'Lane', 'Court', 'Boulevard', 'Way', 'Place', 'St', 'Ave', 'Rd', 'Terrace', 'Circle'];
const CITIES = [['Springfield', 'IL', '62704'], ['Austin', 'Texas', '78701'], ['Portland', 'OR', '97205'], ['Columbus', 'Ohio', '43215'], ['San Diego', 'CA', '92101'], ['Albany', 'NY', '12207']];
function address() {
  const n = between(1, 9999);
  const house = pick(['digits', 'digits', 'spoken', 'pairs'])
  const number = house === 'digits' || n < 10 ? String(n) : house === 'spoken' ? speakDigits([String(n)], { doubles: false }) : spokenPairs(n);
  let text = `${number} ${pick(STREETS)} ${pick(SUFFIXES)}`;
  if (random() < 0.3) text += `, ${pick(['apartment', 'apt', 'unit', 'suite'])} ${pick([String(between(1, 40)), `${between(1, 9)}B`, WORDS[between(1, 9)]])}`;
  if (random() < 0.4) {
    const [city, state, zip] = pick(CITIES);
    text += `, ${city}, ${state}${random() < 0.6 ? ` ${zip}` : ''}`;
  }
  return { text, category: 'postal_address' };
}
/** House numbers as said: "twelve thirty-four", "four hundred". */
function spokenPairs(n) {
  if (n % 100 === 0 && n < 1000) return `${WORDS[n / 100]} hundred`;
  const two = (v) => (v < 10 ? WORDS[v] : v < 20 ? TEEN_WORDS[v - 10] : `${TENS_WORDS[Math.floor(v / 10)]}${v % 10 ? `-${WORDS[v % 10]}` : ''}`);
  if (n < 100) return two(n);
  if (n < 1000) return `${WORDS[Math.floor(n / 100)]} ${n % 100 < 10 ? `oh ${WORDS[n % 100]}` : two(n % 100)}`;
  return `${two(Math.floor(n / 100))} ${n % 100 < 10 ? `oh ${WORDS[n % 100]}` : two(n % 100)}`;
}

function ip() {
  const parts = [pick(['192', '10', '172', '84', '203', '98', '66']), String(between(0, 255)), String(between(0, 255)), String(between(1, 254))];
  const form = pick(['written', 'written', 'spoken', 'spokenWords']);
  if (form === 'written') return { text: parts.join('.'), category: 'ip_address' };
  if (form === 'spoken') return { text: parts.map((p) => speakDigits([p], { doubles: false, zero: 'zero' })).join(' dot '), category: 'ip_address' };
  return { text: parts.join(' dot '), category: 'ip_address' };
}

// ---- look-alikes that are not personal data ----
const plain = (text) => ({ text, category: null });
const orderNumber = () => plain(pick([digits(8), `${between(1, 9)}${digits(9)}`, speakDigits([`${between(1, 9)}${digits(5)}`]), `${between(7, 9)}${digits(11)}`, `${digits(3)}-${digits(4)}-${digits(3)}`]));
const price = () => plain(pick([`$${between(5, 999)}.${digits(2)}`, `$${between(1, 9)},${digits(3)}.${digits(2)}`, `${pick(['forty-nine', 'nineteen', 'twelve', 'two hundred'])} ${pick(['ninety-nine', 'fifty', 'dollars'])}`, `${between(2, 99)} dollars`]));
const time = () => plain(pick([`${between(1, 12)}:${pick(['00', '15', '30', '45'])} ${pick(['am', 'pm', 'p.m.', 'in the morning'])}`, `${pick(['half past', 'quarter to', 'around'])} ${WORDS[between(2, 9)]}`, `${between(8, 11)} to ${between(4, 7)}`]));
const code = () => plain(pick([`${LETTERS[between(0, 25)]}${LETTERS[between(0, 25)]}${between(10, 99)}-${digits(4)}`, `${LETTERS[between(0, 25)]} ${between(1, 9)} ${LETTERS[between(0, 25)]} ${between(1, 9)} ${LETTERS[between(0, 25)]}`, `${pick(['alpha', 'bravo', 'charlie', 'delta'])} ${speakDigits([digits(4)], { doubles: false })}`]));
const otherDate = () => plain(date(2023, 2027));
const count = () => plain(pick([`${between(2, 40)}`, WORDS[between(2, 9)], `${between(1, 9)} hundred`, 'a dozen', `${between(100, 5000)}`]));
const partial = () => plain(pick([digits(4), speakDigits([digits(4)])]));
const version = () => plain(`${between(1, 12)}.${between(0, 20)}.${between(0, 9)}`);
const zipOnly = () => plain(pick(['94110', '10001', '60614', '73301']));

const SLOTS = {
  card, phone, email, ssn, iban, dob, address, ip,
  order: orderNumber, price, time, code, otherDate, count, partial, version, zip: zipOnly,
  expiry: () => plain(pick([`${String(between(1, 12)).padStart(2, '0')}/${between(26, 31)}`, `${pick(['oh', ''])} ${WORDS[between(1, 9)]} ${pick(['twenty-seven', 'twenty-eight', 'thirty'])}`.trim()])),
  cvv: () => plain(pick([digits(3), speakDigits([digits(3)], { doubles: false })])),
  bank: () => plain(pick(['Barclays', 'Deutsche Bank', 'ING', 'Santander'])),
};

function fill(template) {
  let text = '';
  const spans = [];
  let at = 0;
  for (const m of template.matchAll(/\{(\w+)\}/g)) {
    text += template.slice(at, m.index);
    const value = SLOTS[m[1]]();
    if (value.category) spans.push({ start: text.length, end: text.length + value.text.length, category: value.category });
    text += value.text;
    at = m.index + m[0].length;
  }
  return { text: text + template.slice(at), spans };
}

const PLAN = [['card', 60], ['phone', 65], ['email', 55], ['ssn', 40], ['iban', 25], ['dob', 40], ['address', 45], ['ip', 25], ['negative', 130]];
const utterances = [];
for (const [kind, n] of PLAN) for (let i = 0; i < n; i++) utterances.push(fill(pick(T[kind])));
for (let i = 0; i < 24; i++) utterances.push(fill(pick(MIXED)));
const here = dirname(fileURLToPath(import.meta.url));
/** The hand-written lines: `[[category|text]]` marks a span. */
function parseMarked(line) {
  let text = '';
  const spans = [];
  let at = 0;
  for (const m of line.matchAll(/\[\[(\w+)\|([^\]]+)\]\]/g)) {
    text += line.slice(at, m.index);
    spans.push({ start: text.length, end: text.length + m[2].length, category: m[1] });
    text += m[2];
    at = m.index + m[0].length;
  }
  return { text: text + line.slice(at), spans };
}
const handwritten = readFileSync(join(here, 'handwritten.txt'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() && !line.startsWith('#'))
  .map(parseMarked);
const lines = [
  ...utterances.map((u, i) => JSON.stringify({ id: `g${String(i + 1).padStart(3, '0')}`, text: u.text, spans: u.spans })),
  ...handwritten.map((u, i) => JSON.stringify({ id: `h${String(i + 1).padStart(3, '0')}`, text: u.text, spans: u.spans })),
];
const out = join(here, 'corpus.jsonl');
writeFileSync(out, `${lines.join('\n')}\n`);
console.log(`wrote ${lines.length} utterances to ${out}`);
