import { keyFromFragment } from './key-fragment';

/** The API key lives in sessionStorage only: it is gone when the tab closes, and never leaves this origin. */
const STORAGE_KEY = 'voice-console.api-key';
type Listener = () => void;
const listeners = new Set<Listener>();
let notice: string | undefined;

export function currentKey(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function signIn(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key.trim());
  notice = undefined;
  listeners.forEach((l) => l());
}

/** `why` is shown on the sign-in form (e.g. the key was refused). */
export function signOut(why?: string): void {
  sessionStorage.removeItem(STORAGE_KEY);
  notice = why;
  listeners.forEach((l) => l());
}

export function signOutNotice(): string | undefined {
  return notice;
}

export function subscribeSession(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * The zero-setup link (…/app#api_key=…) signs in once: the key moves to sessionStorage and leaves the
 * address bar and the history entry, so it is not bookmarked, shared or kept in the browser's history.
 */
export function adoptKeyFromUrl(): void {
  const { key, fragment } = keyFromFragment(window.location.hash);
  if (!key) return;
  signIn(key);
  window.history.replaceState(window.history.state, '', `${window.location.pathname}${window.location.search}${fragment}`);
}
