export interface TextPart {
  text: string;
  match: boolean;
}

/** Splits text around every case-insensitive occurrence of `term`, to highlight what a search found. */
export function highlightParts(text: string, term: string | undefined): TextPart[] {
  const needle = term?.trim().toLowerCase();
  if (!needle) return [{ text, match: false }];
  const parts: TextPart[] = [];
  const haystack = text.toLowerCase();
  let from = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, from)) {
    if (at > from) parts.push({ text: text.slice(from, at), match: false });
    parts.push({ text: text.slice(at, at + needle.length), match: true });
    from = at + needle.length;
  }
  if (from < text.length) parts.push({ text: text.slice(from), match: false });
  return parts;
}
