import { useEffect, useRef, useState } from 'react';

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
