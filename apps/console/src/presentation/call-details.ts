/** The voice-quality measures in words. */
export const QUALITY_LABELS: Record<string, string> = {
  mos: 'Call quality (MOS, 1–5)',
  jitter_ms: 'Jitter',
  packet_loss_pct: 'Packet loss',
  latency_ms: 'Network latency',
};

/** A quality measure with its unit. */
export function qualityValue(key: string, value: number): string {
  if (key.endsWith('_ms')) return `${value} ms`;
  if (key.endsWith('_pct')) return `${value} %`;
  return String(value);
}

/**
 * The transcript line being spoken at `ms` into the recording: the last line started by then, while it lasts or
 * until the next begins (pauses keep the previous line marked). Undefined before the first line.
 */
export function segmentAt(segments: ReadonlyArray<{ start_ms: number; end_ms?: number | null }>, ms: number): number | undefined {
  let current: number | undefined;
  for (let i = 0; i < segments.length; i++) {
    if (segments[i].start_ms <= ms) current = i;
    else break;
  }
  return current;
}
