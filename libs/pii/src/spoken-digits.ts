/**
 * Speech recognition writes numbers the way they were said: "four one one one", "double five", "oh" for zero,
 * "eight hundred", digits split by commas where the caller paused. The detectors want digits, so this rewrites a
 * text with every spoken number as digits, and keeps for each character of the rewritten text the range of the
 * original text it came from: whatever is found in the rewritten text is reported on the original.
 */
export interface NormalisedText {
  /** The rewritten text: spoken numbers as digits, spoken "dot", "dash", "slash", "plus" between them as symbols. */
  text: string;
  /** For each character of `text`, where its source starts in the original text. */
  sourceStart: number[];
  /** For each character of `text`, where its source ends (exclusive) in the original text. */
  sourceEnd: number[];
}

const UNITS: Record<string, number> = { zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9 };
const TEENS: Record<string, number> = {
  ten: 10, eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
/** Zero said as the letter: a digit only beside other digits ("oh, I see" stays a word). */
const ZERO_AS_LETTER = new Set(['oh', 'o']);
const REPEATS: Record<string, number> = { double: 2, triple: 3 };
const SPOKEN_SEPARATORS: Record<string, string> = { dot: '.', point: '.', dash: '-', hyphen: '-', slash: '/' };
/** Said between groups of digits while reading them out ("four five five six, then seven three…"): a pause. */
const FILLERS = new Set(['then', 'um', 'uh', 'erm', 'er', 'ah']);

interface Token {
  text: string;
  start: number;
  end: number;
}

type Item =
  | { kind: 'digits'; digits: string; start: number; end: number; spoken: boolean }
  | { kind: 'separator'; symbol: string; start: number; end: number; spoken: boolean }
  | { kind: 'space' | 'other'; text: string; start: number; end: number };

function tokenize(text: string): Token[] {
  return [...text.matchAll(/\s+|[A-Za-z]+(?:'[A-Za-z]+)?|\d+|\.{2,}|[^\sA-Za-z\d]/g)].map((m) => ({
    text: m[0],
    start: m.index,
    end: m.index + m[0].length,
  }));
}

const lower = (token: Token | undefined) => token?.text.toLowerCase() ?? '';
const isNumberWord = (word: string) => word in UNITS || word in TEENS || word in TENS || /^\d+$/.test(word);

/** The index of the next token that is not white space (or -1), skipping a hyphen between words ("twenty-one"). */
function nextWord(tokens: Token[], from: number, skipHyphen = false): number {
  for (let i = from; i < tokens.length; i++) {
    if (/^\s+$/.test(tokens[i].text)) continue;
    if (skipHyphen && tokens[i].text === '-') continue;
    return i;
  }
  return -1;
}

function previousWord(tokens: Token[], from: number): number {
  for (let i = from; i >= 0; i--) {
    if (/^\s+$/.test(tokens[i].text) || tokens[i].text === ',' || tokens[i].text === '-') continue;
    return i;
  }
  return -1;
}

/** Whether the token at `index` is a digit or a digit word, counting "oh" next to one. */
function isDigitish(tokens: Token[], index: number, depth = 3): boolean {
  if (index < 0) return false;
  const word = lower(tokens[index]);
  if (isNumberWord(word) || word in REPEATS) return true;
  // "two five oh oh": an "oh" is a digit when the one beside it is.
  if (!ZERO_AS_LETTER.has(word) || depth === 0) return false;
  return isDigitish(tokens, previousWord(tokens, index - 1), depth - 1) || isDigitish(tokens, nextWordAfterPause(tokens, index + 1), depth - 1);
}

/**
 * Reads one spoken or written number starting at token `i`: the digits it stands for and the index of the token
 * after it, or undefined when the token is no number.
 */
function readNumber(tokens: Token[], i: number): { digits: string; next: number } | undefined {
  const word = lower(tokens[i]);
  if (/^\d+$/.test(word)) return { digits: word, next: i + 1 };
  if (word in REPEATS) {
    const j = nextWord(tokens, i + 1);
    const repeated = j >= 0 ? readSingleDigit(tokens, j) : undefined;
    if (repeated === undefined) return undefined;
    return { digits: repeated.repeat(REPEATS[word]), next: j + 1 };
  }
  if (ZERO_AS_LETTER.has(word)) {
    const beside = isDigitish(tokens, previousWord(tokens, i - 1)) || isDigitish(tokens, nextWordAfterPause(tokens, i + 1));
    return beside ? { digits: '0', next: i + 1 } : undefined;
  }
  if (word in TENS) {
    const j = nextWord(tokens, i + 1, true);
    const unit = j >= 0 ? lower(tokens[j]) : '';
    if (unit in UNITS && unit !== 'zero') return { digits: String(TENS[word] + UNITS[unit]), next: j + 1 };
    return { digits: String(TENS[word]), next: i + 1 };
  }
  if (word in TEENS) return withHundred(tokens, String(TEENS[word]), i + 1);
  if (word in UNITS) return withHundred(tokens, String(UNITS[word]), i + 1);
  return undefined;
}

function nextWordAfterPause(tokens: Token[], from: number): number {
  for (let i = from; i < tokens.length; i++) {
    if (/^\s+$/.test(tokens[i].text) || tokens[i].text === ',' || tokens[i].text === '-') continue;
    return i;
  }
  return -1;
}

function readSingleDigit(tokens: Token[], i: number): string | undefined {
  const word = lower(tokens[i]);
  if (/^\d$/.test(word)) return word;
  if (word in UNITS) return String(UNITS[word]);
  if (ZERO_AS_LETTER.has(word)) return '0';
  return undefined;
}

/** "eight hundred" is 800, "one hundred twenty three" 123, "fifteen hundred" 1500. */
function withHundred(tokens: Token[], leading: string, after: number): { digits: string; next: number } {
  const h = nextWord(tokens, after);
  if (h < 0 || lower(tokens[h]) !== 'hundred') return { digits: leading, next: after };
  let j = nextWord(tokens, h + 1);
  if (j >= 0 && lower(tokens[j]) === 'and') j = nextWord(tokens, j + 1);
  const rest = j >= 0 && !(lower(tokens[j]) in REPEATS) && !/^\d+$/.test(lower(tokens[j])) ? readNumber(tokens, j) : undefined;
  // "eight hundred five five five…" is a toll-free prefix read digit by digit, not 805.
  const followedByDigits = rest?.digits.length === 1 && isDigitish(tokens, nextWordAfterPause(tokens, rest.next));
  if (rest && rest.digits.length <= 2 && !followedByDigits) return { digits: leading + rest.digits.padStart(2, '0'), next: rest.next };
  return { digits: `${leading}00`, next: h + 1 };
}

function items(tokens: Token[]): Item[] {
  const out: Item[] = [];
  let i = 0;
  while (i < tokens.length) {
    const token = tokens[i];
    const number = readNumber(tokens, i);
    if (number) {
      const last = tokens[number.next - 1];
      out.push({ kind: 'digits', digits: number.digits, start: token.start, end: last.end, spoken: !/^\d+$/.test(token.text) });
      i = number.next;
      continue;
    }
    const word = lower(token);
    if (/^\s+$/.test(token.text)) out.push({ kind: 'space', text: token.text, start: token.start, end: token.end });
    else if (word in SPOKEN_SEPARATORS) out.push({ kind: 'separator', symbol: SPOKEN_SEPARATORS[word], start: token.start, end: token.end, spoken: true });
    else if (FILLERS.has(word)) out.push({ kind: 'separator', symbol: ',', start: token.start, end: token.end, spoken: true });
    else if (word === 'plus') out.push({ kind: 'separator', symbol: '+', start: token.start, end: token.end, spoken: true });
    // A trailing-off "..." or "…" is a pause, like a comma.
    else if (/^(\.{2,}|…)$/.test(token.text)) out.push({ kind: 'separator', symbol: ',', start: token.start, end: token.end, spoken: false });
    else if (/^[-.,/()+]$/.test(token.text)) out.push({ kind: 'separator', symbol: token.text, start: token.start, end: token.end, spoken: false });
    else out.push({ kind: 'other', text: token.text, start: token.start, end: token.end });
    i++;
  }
  return out;
}


/** A spoken separator is a symbol only between numbers ("dot com" stays words; "plus" only before one). */
/** The nearest item before (step -1) or after (step 1), past spaces and pauses. */
function neighbourOf(list: Item[], i: number, step: number): Item | undefined {
  for (let j = i + step; j >= 0 && j < list.length; j += step) {
    const item = list[j];
    if (item.kind !== 'space' && !(item.kind === 'separator' && item.symbol === ',')) return item;
  }
  return undefined;
}

function resolveSeparators(list: Item[]): Item[] {
  const neighbour = (i: number, step: number) => neighbourOf(list, i, step);
  return list.map((item, i) => {
    if (item.kind !== 'separator' || !item.spoken) return item;
    const before = neighbour(i, -1);
    const after = neighbour(i, 1);
    const between = item.symbol === '+' ? after?.kind === 'digits' : before?.kind === 'digits' && after?.kind === 'digits';
    return between ? item : ({ kind: 'other', text: '', start: item.start, end: item.end } as Item);
  });
}

export function normaliseSpokenDigits(original: string): NormalisedText {
  const list = resolveSeparators(items(tokenize(original)));
  /** Separators with a number on both sides (a "+" or "(" with one after it, a ")" with one before it). */
  const inNumber = new Set<Item>();
  const numeric = (item: Item | undefined): boolean => item?.kind === 'digits' || (item?.kind === 'separator' && inNumber.has(item));
  list.forEach((item, i) => {
    if (item.kind !== 'separator') return;
    const before = neighbourOf(list, i, -1)?.kind === 'digits';
    const after = neighbourOf(list, i, 1)?.kind === 'digits';
    if (item.symbol === '+' || item.symbol === '(' ? after : item.symbol === ')' ? before : before && after) inNumber.add(item);
  });
  let text = '';
  const sourceStart: number[] = [];
  const sourceEnd: number[] = [];
  const emit = (chars: string, start: number, end: number) => {
    for (const char of chars) {
      text += char;
      sourceStart.push(start);
      sourceEnd.push(end);
    }
  };
  const neighbour = (i: number, step: number) => neighbourOf(list, i, step);
  list.forEach((item, i) => {
    if (item.kind === 'digits') return emit(item.digits, item.start, item.end);
    if (item.kind === 'separator') {
      // A pause after a group of digits ("five five five, one two three") separates groups like a space does.
      const symbol = item.symbol === ',' && numeric(neighbour(i, -1)) && numeric(neighbour(i, 1)) ? ' ' : item.symbol;
      if (symbol === ' ' && text.endsWith(' ')) return;
      return emit(symbol, item.start, item.end);
    }
    if (item.kind === 'space') {
      const before = neighbour(i, -1);
      const after = neighbour(i, 1);
      const spokenSide = (before?.kind === 'digits' || before?.kind === 'separator') && before.spoken
        || (after?.kind === 'digits' || after?.kind === 'separator') && after.spoken;
      // Spoken digits are one number until a pause; written groups keep their space.
      if (numeric(before) && numeric(after) && spokenSide) return;
      return emit(item.text, item.start, item.end);
    }
    const word = original.slice(item.start, item.end);
    for (let k = 0; k < word.length; k++) emit(word[k], item.start + k, item.start + k + 1);
  });
  return { text, sourceStart, sourceEnd };
}

/** The range of the original text that the rewritten range [start, end) came from. */
export function sourceRange(normalised: NormalisedText, start: number, end: number): { start: number; end: number } {
  return { start: normalised.sourceStart[start], end: normalised.sourceEnd[end - 1] };
}
