#!/usr/bin/env node
// `npm run bench:pii` — precision and recall of the PII detection (libs/pii) per category on the labelled corpus
// (libs/pii/corpus/corpus.jsonl), beside the off-the-shelf baseline redact-pii (its SyncRedactor with the
// built-in patterns that match our categories) on the same corpus. Span level: a reported span counts when it
// overlaps a labelled span of the same category. Writes the table into BENCHMARKS.md between the pii markers.
// Needs `npm run build` (or `npx tsc -b libs/pii`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import redactPii from 'redact-pii';
import { importBuilt, root, writeBenchmarkSection } from './support.mjs';

const { pii } = await importBuilt({ pii: 'libs/pii/dist/index.js' });
const corpus = readFileSync(join(root, 'libs/pii/corpus/corpus.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line));

/** redact-pii's built-in redactors, by the label each writes, that stand for one of our categories (it has no IBAN or date of birth). */
const BASELINE_CATEGORIES = {
  CREDIT_CARD_NUMBER: 'credit_card',
  PHONE_NUMBER: 'phone_number',
  EMAIL_ADDRESS: 'email',
  US_SOCIAL_SECURITY_NUMBER: 'ssn',
  IP_ADDRESS: 'ip_address',
  STREET_ADDRESS: 'postal_address',
  ZIPCODE: 'postal_address',
};
const LABEL = new RegExp(Object.keys(BASELINE_CATEGORIES).join('|'));
// Its other redactors stand for nothing we label (and "digits" would take every number of four digits or more).
const OFF = ['names', 'digits', 'url', 'username', 'password', 'credentials'];
const redactor = new redactPii.SyncRedactor({ builtInRedactors: Object.fromEntries(OFF.map((name) => [name, { enabled: false }])) });

/** redact-pii returns only the redacted text: its spans are the gaps between the unchanged pieces, in order. */
function baselineSpans(text) {
  const redacted = redactor.redact(text);
  const spans = [];
  let at = 0;
  let rest = redacted;
  for (;;) {
    const m = LABEL.exec(rest);
    if (!m) break;
    at += m.index;
    const after = rest.slice(m.index + m[0].length);
    const next = after.search(LABEL);
    const literal = next < 0 ? after : after.slice(0, next);
    const end = literal === '' ? (next < 0 ? text.length : at) : text.indexOf(literal, at);
    if (end > at) spans.push({ start: at, end, category: BASELINE_CATEGORIES[m[0]] });
    at = end < 0 ? text.length : end + literal.length;
    rest = next < 0 ? '' : after.slice(next);
  }
  return spans;
}

const ours = pii.scoreDetections(corpus, (text) => pii.findPii(text));
const baseline = pii.scoreDetections(corpus, baselineSpans);
const TARGETS = new Set(['credit_card', 'ssn', 'email', 'phone_number']);
const f = (n) => n.toFixed(3);
const supported = new Set(Object.values(BASELINE_CATEGORIES));
const rows = ours.map((o, i) => {
  const b = baseline[i];
  const base = supported.has(o.category) ? `${f(b.precision)} | ${f(b.recall)}` : '— | —';
  return `| ${o.category}${TARGETS.has(o.category) ? ' ¹' : ''} | ${o.labelled} | **${f(o.precision)}** | **${f(o.recall)}** | ${base} |`;
});
const generated = corpus.filter((u) => u.id.startsWith('g')).length;
const section = [
  `${corpus.length} utterances (${generated} generated from varied phrasings, ${corpus.length - generated} written by hand), ` +
    `${corpus.reduce((n, u) => n + u.spans.length, 0)} labelled spans, ${corpus.filter((u) => u.spans.length === 0).length} utterances with none; measured ${new Date().toISOString().slice(0, 10)}.`,
  '',
  '| category | labelled | precision | recall | redact-pii precision | redact-pii recall |',
  '|---|---|---|---|---|---|',
  ...rows,
  '',
  '¹ target: precision ≥ 0.95 and recall ≥ 0.98 (held by `libs/pii/src/pii-corpus.spec.ts`).',
].join('\n');
console.log(section);
if (process.env.BENCH_WRITE !== '0') writeBenchmarkSection('pii', section);
