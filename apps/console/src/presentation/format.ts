/** Seconds as a call length: 0:42, 3:05, 1:02:07. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** A transcript offset in milliseconds as m:ss. */
export function formatOffset(ms: number): string {
  return formatDuration(Math.floor(ms / 1000));
}

export function formatMoney(amount: number | null | undefined, currency = 'USD'): string {
  if (amount === null || amount === undefined) return '—';
  return `${amount.toFixed(amount !== 0 && Math.abs(amount) < 1 ? 4 : 2)} ${currency}`;
}

/** A timestamp in UTC, to the second: the same for every operator, whatever their time zone. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** snake_case values (appointment_booked, in_progress) as words. */
export function humanize(value: string | null | undefined): string {
  if (!value) return '—';
  const words = value.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A histogram bucket's label: "0 s–30 s", "30 s–1 min", "30 min+". */
export function histogramLabel(min: number, max: number | null): string {
  const unit = (s: number) => (s >= 60 && s % 60 === 0 ? `${s / 60} min` : `${s} s`);
  return max === null ? `${unit(min)}+` : `${unit(min)}–${unit(max)}`;
}

/** A voice platform's name: platform_a → "Platform A". */
export function platformName(platform: string | null | undefined): string {
  if (!platform) return '—';
  return platform.replace(/^platform_(\w)$/, (_m, letter: string) => `Platform ${letter.toUpperCase()}`).replace(/_/g, ' ');
}

/** A word's singular, for the plural forms topics come in (appointments, inquiries); words that only end in s stay. */
function singular(word: string): string {
  if (word.length <= 3 || /(ss|us|is|ics)$/.test(word)) return word;
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ch|sh|x)es$/.test(word)) return word.slice(0, -2);
  return word.endsWith('s') ? word.slice(0, -1) : word;
}

/**
 * The one form a topic is counted and shown under: analysis writes the same topic as "Appointment",
 * "appointments" or "appointment_booking"-style keys, so case, separators and a final plural are folded.
 */
export function topicKey(topic: string): string {
  return topic.trim().toLowerCase().replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').split(' ').map(singular).join(' ');
}

/** A topic as words: technical_support → "Technical support". */
export function topicLabel(topic: string): string {
  const key = topicKey(topic);
  return key ? key.charAt(0).toUpperCase() + key.slice(1) : '—';
}

/** Topic counts merged under their folded form, largest first. */
export function mergeTopics(topics: ReadonlyArray<{ topic: string; count: number }>): Array<{ topic: string; count: number }> {
  const merged = new Map<string, number>();
  for (const { topic, count } of topics) merged.set(topicKey(topic), (merged.get(topicKey(topic)) ?? 0) + count);
  return [...merged].map(([topic, count]) => ({ topic, count })).sort((a, b) => b.count - a.count || a.topic.localeCompare(b.topic));
}

/** Distinct topics of one conversation as words. */
export function topicList(topics: readonly string[]): string {
  return [...new Set(topics.map(topicLabel))].join(', ') || '—';
}

/** A timestamp in UTC to the minute, for tables whose heading says UTC: 2026-11-27 09:14. */
export function formatShortTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toISOString().slice(0, 16).replace('T', ' ');
}
