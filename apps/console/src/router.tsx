import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/** Where the gateway serves the console; every route below is relative to it. */
export const BASE = '/app';
const CHANGE = 'voice-console:navigate';

function subscribe(listener: () => void): () => void {
  window.addEventListener('popstate', listener);
  window.addEventListener(CHANGE, listener);
  return () => {
    window.removeEventListener('popstate', listener);
    window.removeEventListener(CHANGE, listener);
  };
}

const snapshot = () => `${window.location.pathname}${window.location.search}`;

/** The route (path under /app, '/' at the top) and the query string of the current address. */
export function useLocation(): { path: string; search: string } {
  const current = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(current, window.location.origin);
  const inside = url.pathname.startsWith(BASE) ? url.pathname.slice(BASE.length) || '/' : '/';
  // The gateway also serves the app as /app/index.html: the same page as /app/.
  const path = inside === '/index.html' ? '/' : inside;
  return { path: path.length > 1 ? path.replace(/\/+$/, '') : path, search: url.search };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = `${BASE}${to === '/' ? '/' : to}`;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.dispatchEvent(new Event(CHANGE));
}

/** A real link (open in a new tab, copy the address) that navigates in place on a plain click. */
export function Link({ to, onClick, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
    window.scrollTo(0, 0);
  };
  return <a href={`${BASE}${to === '/' ? '/' : to}`} onClick={follow} {...rest} />;
}

/** The route's parameters when `pattern` (e.g. /conversations/:id) matches `path`. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const have = path.split('/');
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(have[i]);
    else if (want[i] !== have[i]) return undefined;
  }
  return params;
}
