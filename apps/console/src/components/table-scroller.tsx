import type { ReactNode } from 'react';

/**
 * A table that scrolls sideways when it must; focusable so the keyboard can scroll it too. `stacked`: on a
 * phone its rows become cards (each cell under its column's name) instead, so nothing needs scrolling.
 */
export function TableScroller({ label, stacked = false, children }: { label: string; stacked?: boolean; children: ReactNode }) {
  return (
    <div className={`table-scroll${stacked ? ' stacked' : ''}`} role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
