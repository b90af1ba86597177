import type { FastifyReply, onRequestHookHandler } from 'fastify';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { GatewayRequest } from '../http/gateway-request.js';
import { writeError } from '../http/write-error.js';
import { CONSOLE_CSP, consoleAnswerFor, contentTypeOf, isCompressible, prefersGzip } from './console-paths.rules.js';

const gzipAsync = promisify(gzip);

/** apps/console/dist, seen from this file in src/ (tests) or dist/ (the built gateway). */
export function defaultConsoleDir(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'console', 'dist');
}

interface Loaded {
  mtimeMs: number;
  body: Buffer;
  gzipped?: Buffer;
}

/**
 * Serves the operator console at /app (GET and HEAD) before the API's routing sees the request (a Fastify
 * onRequest hook). Files are read from the build directory as they are now (a rebuild shows without a
 * restart), kept in memory while unchanged, and sent gzip-compressed to clients that accept it.
 */
export function serveConsole(directory: string = defaultConsoleDir()): onRequestHookHandler {
  const root = resolve(directory);
  const cache = new Map<string, Loaded>();

  async function load(file: string): Promise<Loaded | undefined> {
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const cached = cache.get(file);
    if (cached && cached.mtimeMs === info.mtimeMs) return cached;
    const loaded: Loaded = { mtimeMs: info.mtimeMs, body: await readFile(file) };
    if (isCompressible(contentTypeOf(file))) loaded.gzipped = await gzipAsync(loaded.body);
    cache.set(file, loaded);
    return loaded;
  }

  function send(req: GatewayRequest, reply: FastifyReply, loaded: Loaded, type: string): void {
    reply.type(type).header('Vary', 'Accept-Encoding').header('X-Content-Type-Options', 'nosniff');
    const body = loaded.gzipped && prefersGzip(req.headers['accept-encoding']) ? loaded.gzipped : loaded.body;
    if (body === loaded.gzipped) reply.header('Content-Encoding', 'gzip');
    // Kept as set for HEAD (Fastify sends no body then): the length a GET would get.
    reply.header('Content-Length', String(body.length));
    reply.send(req.method === 'HEAD' ? '' : body);
  }

  return (request, reply, done) => {
    const req = request as GatewayRequest;
    const answer = req.method === 'GET' || req.method === 'HEAD' ? consoleAnswerFor(req.path) : undefined;
    if (!answer) {
      done();
      return;
    }
    const notFound = (message: string) => writeError(reply, req.requestId, { code: 'not_found', message });
    void (async () => {
      if (answer.kind === 'not_found') return notFound(`No console file at ${req.path}.`);
      if (answer.kind === 'index') {
        const index = await load(join(root, 'index.html'));
        if (!index) return notFound('The console is not built: run `npm run build` (npm start builds it when missing).');
        // Always revalidated, so a new build's asset names are picked up at once; the assets themselves never change.
        reply.header('Cache-Control', 'no-cache').header('Content-Security-Policy', CONSOLE_CSP).header('Referrer-Policy', 'no-referrer');
        return send(req, reply, index, 'text/html; charset=utf-8');
      }
      const file = join(root, ...answer.segments);
      // consoleAnswerFor already refuses `..`; this keeps the guarantee whatever a segment turns out to be.
      if (!file.startsWith(root + sep)) return notFound(`No console file at ${req.path}.`);
      const loaded = await load(file);
      if (!loaded) return notFound(`No console file at ${req.path}.`);
      reply.header('Cache-Control', answer.cache === 'immutable' ? 'public, max-age=31536000, immutable' : 'public, max-age=3600');
      return send(req, reply, loaded, contentTypeOf(file));
    })().catch((err: Error) => done(err));
  };
}
