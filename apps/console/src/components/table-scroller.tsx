import type { ReactNode } from 'react';

/** A table that scrolls sideways on a narrow screen; focusable so the keyboard can scroll it too. */
export function TableScroller({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
