import { useEffect, useRef, useState, type InputHTMLAttributes } from 'react';

/**
 * A text or number filter that applies itself once typing pauses (or on Enter), so each keystroke does not
 * become a request and a history entry. Follows its value when the address changes underneath (back, reset).
 */
export function DebouncedInput({ value, onCommit, delayMs = 400, ...rest }: { value: string; onCommit: (value: string) => void; delayMs?: number } & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>) {
  const [draft, setDraft] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const committed = useRef(value);
  useEffect(() => {
    committed.current = value;
    setDraft(value);
  }, [value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const commit = (next: string) => {
    clearTimeout(timer.current);
    if (next !== committed.current) {
      committed.current = next;
      onCommit(next);
    }
  };
  return (
    <input
      {...rest}
      value={draft}
      onChange={(e) => {
        const next = e.target.value;
        setDraft(next);
        clearTimeout(timer.current);
        timer.current = setTimeout(() => commit(next), delayMs);
      }}
      onKeyDown={(e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          commit(draft);
        }
      }}
      onBlur={() => commit(draft)}
    />
  );
}
