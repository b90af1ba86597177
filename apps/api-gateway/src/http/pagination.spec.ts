import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { isHostAndPort, linksOrigin, pageLinks, pageMeta, parsePageQuery } from './pagination.js';

const base = 'http://api.test/v1/conversations';
const page = (link: string | null) => (link === null ? null : Number(new URL(link).searchParams.get('page')));

describe('pageMeta', () => {
  it('counts pages by rounding up, and 0 pages for no results', () => {
    expect(pageMeta(51, 2, 25)).toEqual({ total: 51, page: 2, per_page: 25, total_pages: 3 });
    expect(pageMeta(50, 1, 25).total_pages).toBe(2);
    expect(pageMeta(0, 1, 25).total_pages).toBe(0);
  });
});

describe('pageLinks', () => {
  it('keeps every filter, writes the effective per_page and replaces page', () => {
    const links = pageLinks({ baseUrl: base, search: '?status=completed&page=2&per_page=500&topic=a%20b', page: 2, perPage: 100, total: 350 });
    const next = new URL(links.next!);
    expect(next.origin + next.pathname).toBe(base);
    expect(next.searchParams.get('status')).toBe('completed');
    expect(next.searchParams.get('topic')).toBe('a b');
    expect(next.searchParams.get('per_page')).toBe('100');
    expect(next.searchParams.getAll('page')).toEqual(['3']);
    expect([page(links.first), page(links.prev), page(links.next), page(links.last)]).toEqual([1, 1, 3, 4]);
  });

  it('adds per_page when the client did not give it', () => {
    const links = pageLinks({ baseUrl: base, search: '', page: 1, perPage: 25, total: 10 });
    expect(links.first).toBe(`${base}?per_page=25&page=1`);
  });

  it('has no prev on the first page and no next on the last', () => {
    const first = pageLinks({ baseUrl: base, search: '', page: 1, perPage: 10, total: 30 });
    expect(first.prev).toBeNull();
    expect(page(first.next)).toBe(2);
    const last = pageLinks({ baseUrl: base, search: '', page: 3, perPage: 10, total: 30 });
    expect(last.next).toBeNull();
    expect(page(last.prev)).toBe(2);
    expect(page(last.last)).toBe(3);
  });

  it('points last at page 1 when there are no results', () => {
    const links = pageLinks({ baseUrl: base, search: '', page: 1, perPage: 25, total: 0 });
    expect([page(links.first), links.prev, links.next, page(links.last)]).toEqual([1, null, null, 1]);
  });

  it('past the end: prev is the last real page, next is null', () => {
    const links = pageLinks({ baseUrl: base, search: 'page=9', page: 9, perPage: 10, total: 25 });
    expect(page(links.prev)).toBe(3);
    expect(links.next).toBeNull();
    const empty = pageLinks({ baseUrl: base, search: '', page: 4, perPage: 10, total: 0 });
    expect(page(empty.prev)).toBe(1);
  });
});

describe('linksOrigin', () => {
  const own = 'http://127.0.0.1:3000';

  it('uses a configured PUBLIC_URL whatever Host the client sent', () => {
    for (const host of ['evil.example', 'evil.example/phish?x=', 'api.test:8080', undefined]) {
      expect(linksOrigin({ configuredPublicUrl: 'https://api.example.com/', ownUrl: own, protocol: 'http', host })).toBe('https://api.example.com');
    }
  });

  it('without PUBLIC_URL keeps a plain host[:port] with the gateway\'s scheme', () => {
    expect(linksOrigin({ ownUrl: own, protocol: 'http', host: 'api.test:8080' })).toBe('http://api.test:8080');
    expect(linksOrigin({ ownUrl: own, protocol: 'https', host: 'api.test' })).toBe('https://api.test');
    expect(linksOrigin({ ownUrl: own, protocol: 'http', host: '[::1]:3000' })).toBe('http://[::1]:3000');
  });

  it.each([
    ['evil.example/phish?x='], ['evil.example?x'], ['evil.example#x'], ['user@evil.example'], ['evil .example'],
    ['evil.example:80/x'], ['evil.example:port'], [''], ['a\\b'], ['-evil.example'], [undefined],
  ])('without PUBLIC_URL falls back to the gateway\'s own address for Host %j', (host) => {
    expect(linksOrigin({ ownUrl: own, protocol: 'http', host })).toBe(own);
  });

  it('isHostAndPort accepts names, IPv4 and bracketed IPv6 with an optional port only', () => {
    for (const ok of ['localhost', 'localhost:3000', 'api.example.com', '10.0.0.1:80', '[2001:db8::1]:443', 'xn--bcher-kva.example']) expect(isHostAndPort(ok)).toBe(true);
    for (const bad of ['a/b', 'a?b', 'a#b', 'a@b', 'a b', 'a:b:c', '[zz]', 'a:123456']) expect(isHostAndPort(bad)).toBe(false);
  });
});

describe('parsePageQuery', () => {
  it('defaults to page 1 of 25 and caps per_page at 100', () => {
    expect(parsePageQuery({})).toEqual({ page: 1, perPage: 25 });
    expect(parsePageQuery({ page: '3', per_page: '500' })).toEqual({ page: 3, perPage: 100 });
  });

  it.each([['0'], ['-1'], ['1.5'], ['abc'], [''], [['1', '2']]])('refuses page=%j', (value) => {
    expect(parsePageQuery({ page: value })).toEqual({ invalid: 'page' });
    expect(parsePageQuery({ per_page: value })).toEqual({ invalid: 'per_page' });
  });
});

describe('pageLinks (properties)', () => {
  const pageOf = (link: string) => Number(new URL(link).searchParams.get('page'));

  it('walking next from first visits every page once and ends on last; prev walks back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 1, max: 100 }), (total, perPage) => {
        const links = (page: number) => pageLinks({ baseUrl: base, search: 'status=completed', page, perPage, total });
        const visited: number[] = [];
        let page = pageOf(links(1).first);
        for (;;) {
          visited.push(page);
          const next = links(page).next;
          if (next === null) break;
          expect(pageOf(links(pageOf(next)).prev!)).toBe(page);
          page = pageOf(next);
        }
        const expectedPages = Math.max(pageMeta(total, 1, perPage).total_pages, 1);
        expect(visited).toEqual(Array.from({ length: expectedPages }, (_, i) => i + 1));
        expect(pageOf(links(1).last)).toBe(expectedPages);
      }),
      { numRuns: 200 },
    );
  });
});
