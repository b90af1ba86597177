import { useEffect, useRef, useState, type ReactNode } from 'react';
import { ApiProblem } from './api/client';
import { missingScopeOf } from './rules/problems';

/** An error in place of what could not be loaded or done; a 403 says which scope the key lacks. */
export function ErrorNotice({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  const problem = error instanceof ApiProblem ? error : undefined;
  const scope = problem ? missingScopeOf(problem) : undefined;
  return (
    <div className="notice error" role="alert">
      <strong>{scope ? 'Permission needed' : title}</strong>
      {scope ? (
        <p>
          This API key lacks the <code>{scope}</code> scope. Sign in with a key that has it, or create one under API keys.
        </p>
      ) : null}
      <p>{problem?.message ?? (error instanceof Error ? error.message : String(error))}</p>
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function Pager({ page, totalPages, total, onPage, noun }: { page: number; totalPages: number; total: number; onPage: (page: number) => void; noun: string }) {
  return (
    <nav className="pager" aria-label={`${noun} pages`}>
      <span role="status">
        {total} {noun} · page {Math.min(page, Math.max(totalPages, 1))} of {Math.max(totalPages, 1)}
      </span>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous page
      </button>
      <button type="button" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        Next page
      </button>
    </nav>
  );
}

/** Copies text; says so for a moment (screen readers hear it through the status role). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(undefined), 2000);
  };
  return (
    <>
      <button type="button" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" className="muted">
        {copied === 'yes' ? ' Copied.' : copied === 'no' ? ' Copy failed: select the text and copy it.' : ''}
      </span>
    </>
  );
}

/** A table that scrolls sideways on a narrow screen; focusable so the keyboard can scroll it too. */
export function TableScroller({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

export function Field({ id, label, error, hint, children }: { id: string; label: string; error?: string; hint?: string; children: ReactNode }) {
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint ? (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** aria attributes an input needs to be tied to its Field's error and hint. */
export function describedBy(id: string, error?: string, hint?: string) {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return { 'aria-invalid': error ? true : undefined, 'aria-describedby': ids || undefined } as const;
}
