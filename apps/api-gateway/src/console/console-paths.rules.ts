/**
 * How the gateway answers a request under /app, where it serves the operator console (a single-page app
 * built into apps/console/dist): hashed build assets are cached for a year, any other path that does not
 * name a file is a client-side route and gets index.html, and nothing outside the build directory can be
 * named (no `..`, no encoded slashes or NULs).
 */
export const CONSOLE_PREFIX = '/app';

export type ConsoleAnswer =
  | { kind: 'index' }
  | { kind: 'file'; segments: string[]; cache: 'immutable' | 'short' }
  | { kind: 'not_found' };

/** Undefined when the path is not the console's (the API's own routing handles it). */
export function consoleAnswerFor(path: string): ConsoleAnswer | undefined {
  // Browsers ask the origin for /favicon.ico on any page without an icon link (/docs, a JSON answer): the console's icon.
  if (path === '/favicon.ico') return { kind: 'file', segments: ['favicon.svg'], cache: 'short' };
  if (path !== CONSOLE_PREFIX && !path.startsWith(`${CONSOLE_PREFIX}/`)) return undefined;
  const raw = path.slice(CONSOLE_PREFIX.length + 1).split('/').filter(Boolean);
  const segments: string[] = [];
  for (const part of raw) {
    let segment: string;
    try {
      segment = decodeURIComponent(part);
    } catch {
      return { kind: 'not_found' };
    }
    if (segment === '.' || segment === '..' || /[/\\\0]/.test(segment)) return { kind: 'not_found' };
    segments.push(segment);
  }
  if (segments.length === 0) return { kind: 'index' };
  // Vite writes content-hashed names under assets/: a changed file gets a new name, so a year is safe.
  if (segments[0] === 'assets') return segments.length > 1 ? { kind: 'file', segments, cache: 'immutable' } : { kind: 'not_found' };
  if (segments.length === 1 && segments[0] === 'index.html') return { kind: 'index' };
  // A name with an extension is a file (favicon.svg); anything else is a route of the app (/app/conversations/call_1).
  if (/\.[A-Za-z0-9]+$/.test(segments[segments.length - 1])) return { kind: 'file', segments, cache: 'short' };
  return { kind: 'index' };
}

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  html: 'text/html; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  ico: 'image/x-icon',
  woff2: 'font/woff2',
  json: 'application/json; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  map: 'application/json; charset=utf-8',
};

export function contentTypeOf(fileName: string): string {
  const extension = fileName.split('.').pop()?.toLowerCase() ?? '';
  return TYPES[extension] ?? 'application/octet-stream';
}

/** Text is worth compressing; images and fonts already are. */
export function isCompressible(contentType: string): boolean {
  return /^(text\/|application\/json|image\/svg)/.test(contentType);
}

/**
 * The page's own rules: scripts, styles and API calls from this origin only (React and uPlot set styles
 * through the CSSOM, which style-src does not govern); recordings live on the voice platform's storage, so
 * media from anywhere.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  'media-src * blob:',
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/**
 * Whether a client sending this Accept-Encoding gets gzip rather than the plain bytes, negotiated as HTTP
 * says (RFC 9110 §12.5.3): by q-value, an explicit coding before `*`, then the client's order. identity is
 * acceptable unless refused, at the lowest q the client gave when it does not name it.
 */
export function prefersGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined) return false;
  const entries = acceptEncoding
    .split(',')
    .map((part, order) => {
      const [coding, ...params] = part.split(';').map((p) => p.trim());
      const q = params.map((p) => /^q=([0-9.]+)$/i.exec(p)?.[1]).find((v) => v !== undefined);
      return { coding: coding.toLowerCase(), q: q === undefined ? 1 : Math.min(1, Number(q) || 0), order };
    })
    .filter((e) => e.coding !== '');
  const match = (coding: string) => {
    const exact = entries.find((e) => e.coding === coding);
    if (exact) return { q: exact.q, specific: 1, order: exact.order };
    const any = entries.find((e) => e.coding === '*');
    return any ? { q: any.q, specific: 0, order: any.order } : undefined;
  };
  const gzip = match('gzip') ?? { q: 0, specific: 0, order: Infinity };
  const lowest = entries.reduce((min, e) => Math.min(min, e.q), 1);
  const identity = match('identity') ?? { q: lowest, specific: 0, order: Infinity };
  if (gzip.q <= 0) return false;
  if (gzip.q !== identity.q) return gzip.q > identity.q;
  if (gzip.specific !== identity.specific) return gzip.specific > identity.specific;
  return gzip.order <= identity.order;
}
