import type { PiiSpan } from './pii-categories.js';

const NUMBER_WORD = '(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand)';
const HOUSE_NUMBER = `(?:\\d{1,6}[A-Za-z]?\\b|(?:[Nn]umber\\s+)?(?:${NUMBER_WORD}(?:[- ]|\\s+and\\s+)){0,5}${NUMBER_WORD}\\b)`;
/** Street names as recognisers write them: capitalised words, or ordinals ("5th", "Fifth"). */
const STREET_NAME = "(?:(?:[A-Z][a-z'.]+|\\d{1,3}(?:st|nd|rd|th)|[A-Z])\\s+){1,3}";
const SUFFIX =
  '(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Terrace|Circle|Cir|Parkway|Pkwy|Highway|Hwy|Square|Close|Crescent|Trail|Row|Alley|Plaza)\\.?';
const UNIT = `(?:,?\\s+(?:apartment|apt\\.?|unit|suite|ste\\.?|flat|#)\\s*(?:\\d+[A-Za-z]?|[A-Za-z]\\b|${NUMBER_WORD}(?:[- ]${NUMBER_WORD}){0,3}))?`;
const STATE =
  '(?:A[LKZR]|C[AOT]|D[EC]|FL|GA|HI|I[DLNA]|K[SY]|LA|M[EDAINSOT]|N[EVHJMYCD]|O[HKR]|PA|RI|S[CD]|T[NX]|UT|V[TA]|W[AVIY]|Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Georgia|Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|Vermont|Virginia|Washington|West Virginia|Wisconsin|Wyoming)';
const ZIP = '\\d{5}(?:-\\d{4})?';
const UK_POSTCODE = '[A-Z]{1,2}\\d[A-Z\\d]?\\s*\\d[A-Z]{2}';
/** After the street, a city only counts with a state, ZIP or postcode after it (", Springfield, IL 62704"). */
const LOCALITY = `(?:,?\\s+(?:[A-Z][a-z]+\\s?){1,3},?\\s+(?:${STATE}(?:,?\\s+${ZIP})?|${ZIP}|${UK_POSTCODE})\\b)?`;

const STREET_ADDRESS = new RegExp(`(?<![\\w-])${HOUSE_NUMBER}\\s+${STREET_NAME}${SUFFIX}(?![a-z])${UNIT}${LOCALITY}`, 'g');
const PO_BOX = /\bP\.?\s?O\.?\s?Box\s+\d+\b/gi;

export function findPostalAddresses(text: string): PiiSpan[] {
  const spans: PiiSpan[] = [];
  for (const m of text.matchAll(STREET_ADDRESS)) spans.push({ start: m.index, end: m.index + m[0].trimEnd().length, category: 'postal_address' });
  for (const m of text.matchAll(PO_BOX)) spans.push({ start: m.index, end: m.index + m[0].length, category: 'postal_address' });
  return spans;
}
