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
