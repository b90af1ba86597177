import { describe, expect, it } from '@jest/globals';
import { consoleAnswerFor, contentTypeOf, isCompressible, prefersGzip } from './console-paths.rules.js';

describe('consoleAnswerFor', () => {
  it('leaves every other path to the API', () => {
    expect(consoleAnswerFor('/v1/agents')).toBeUndefined();
    expect(consoleAnswerFor('/application')).toBeUndefined();
    expect(consoleAnswerFor('/docs')).toBeUndefined();
  });

  it('serves index.html at the top and for client-side routes (deep links)', () => {
    for (const path of ['/app', '/app/', '/app/index.html', '/app/conversations', '/app/conversations/call_01HZX3', '/app/agents/agt_1/']) {
      expect(consoleAnswerFor(path)).toEqual({ kind: 'index' });
    }
  });

  it('serves hashed build assets with a year-long cache, other files with a short one', () => {
    expect(consoleAnswerFor('/app/assets/index-N1MjWtgB.js')).toEqual({ kind: 'file', segments: ['assets', 'index-N1MjWtgB.js'], cache: 'immutable' });
    expect(consoleAnswerFor('/app/favicon.svg')).toEqual({ kind: 'file', segments: ['favicon.svg'], cache: 'short' });
  });

  it("answers the origin's /favicon.ico with the console's icon", () => {
    expect(consoleAnswerFor('/favicon.ico')).toEqual({ kind: 'file', segments: ['favicon.svg'], cache: 'short' });
    expect(consoleAnswerFor('/favicon.ico/x')).toBeUndefined();
  });

  it('never names anything outside the build directory', () => {
    for (const path of ['/app/../package.json', '/app/assets/..%2F..%2Fpackage.json', '/app/%2e%2e/secret.txt', '/app/assets/a%5C..%5Cb.js', '/app/assets/%00.js', '/app/assets/%E0%A4%A.js', '/app/assets']) {
      expect(consoleAnswerFor(path)).toEqual({ kind: 'not_found' });
    }
  });
});

describe('content types', () => {
  it('names the types the build writes and compresses only text', () => {
    expect(contentTypeOf('index-1.js')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeOf('index-1.CSS')).toBe('text/css; charset=utf-8');
    expect(contentTypeOf('unknown.bin')).toBe('application/octet-stream');
    expect(isCompressible(contentTypeOf('a.js'))).toBe(true);
    expect(isCompressible(contentTypeOf('a.png'))).toBe(false);
  });
});

describe('prefersGzip', () => {
  it('compresses for clients that list gzip, as browsers do', () => {
    expect(prefersGzip('gzip, deflate, br')).toBe(true);
    expect(prefersGzip('gzip')).toBe(true);
    expect(prefersGzip('*')).toBe(true);
  });

  it('sends the plain bytes when gzip is not accepted or not asked for', () => {
    expect(prefersGzip(undefined)).toBe(false);
    expect(prefersGzip('')).toBe(false);
    expect(prefersGzip('br, deflate')).toBe(false);
    expect(prefersGzip('gzip;q=0')).toBe(false);
    expect(prefersGzip('*, gzip;q=0')).toBe(false);
  });

  it('follows the q-values, then an explicit coding before *, then the client’s order', () => {
    expect(prefersGzip('identity;q=1, gzip;q=0.5')).toBe(false);
    expect(prefersGzip('identity;q=0.2, gzip;q=0.5')).toBe(true);
    expect(prefersGzip('identity, *')).toBe(false);
    expect(prefersGzip('identity, gzip')).toBe(false);
    expect(prefersGzip('gzip, identity')).toBe(true);
    expect(prefersGzip('deflate;q=0.3, gzip;q=0.3')).toBe(true);
  });
});
