import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { validateHeaderValue } from 'node:http';
import { findConfigureIntegrationProblem } from '../../libs/contracts/src/integrations.js';

const valid = { api_key: 'pa_live_4f8a2c9e1b7d3f60a5c2', webhook_secret: 'whsec_9c1e7a3f5b2d8e4c6a0f', base_url: 'https://eu.api.platform-a.example/' };

/** The alphabet as the README states it, written without the implementation's regular expression. */
const isVisibleAscii = (text: string) => [...text].every((char) => char.codePointAt(0)! >= 0x21 && char.codePointAt(0)! <= 0x7e);

/** Characters no credential may hold: what a header cannot carry, whitespace, Latin-1 and beyond, a lone surrogate. */
const REFUSED = ['\u0000', '\u0001', '\t', '\n', '\r', '\r\n', ' ', '\u007f', '\u0085', '\u00a0', 'é', 'ÿ', 'Ā', '漢', '😀', '\ud800', '\udc00', '\u2028', '\ufeff'];

function headerCarries(text: string): boolean {
  try {
    validateHeaderValue('authorization', `Bearer ${text}`);
    return true;
  } catch {
    return false;
  }
}

describe('configure integration payload: the characters of each field', () => {
  it('accepts keys and secrets of every visible ASCII character', () => {
    let all = '';
    for (let code = 0x21; code <= 0x7e; code++) all += String.fromCharCode(code);
    expect(findConfigureIntegrationProblem({ ...valid, api_key: all, webhook_secret: all })).toBeUndefined();
    expect(findConfigureIntegrationProblem({ api_key: 'k', webhook_secret: 's' })).toBeUndefined();
  });

  it.each(['api_key', 'webhook_secret'])('%s: a refused character anywhere is invalid_parameter on that field', (field) => {
    for (const bad of REFUSED) {
      for (const value of [`${bad}key`, `key${bad}`, `ke${bad}y`, bad]) {
        expect([field, JSON.stringify(value), findConfigureIntegrationProblem({ ...valid, [field]: value })]).toEqual([
          field,
          JSON.stringify(value),
          expect.objectContaining({ code: 'invalid_parameter', field, message: expect.stringContaining('visible ASCII') }),
        ]);
      }
    }
  });

  it('api_key and webhook_secret: accepted exactly when every character is visible ASCII, and an accepted key always fits in a header (property)', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
      fc.string({ unit: fc.oneof(fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), fc.constantFrom(...REFUSED)), minLength: 1, maxLength: 40 }),
    );
    fc.assert(
      fc.property(fc.constantFrom('api_key', 'webhook_secret'), text, (field, value) => {
        const problem = findConfigureIntegrationProblem({ ...valid, [field]: value });
        if (isVisibleAscii(value)) return problem === undefined && headerCarries(value);
        return problem?.code === 'invalid_parameter' && problem.field === field;
      }),
      { numRuns: 2_000 },
    );
  });

  it('base_url: whitespace and control characters are refused on base_url (the URL parser would silently drop tabs and line breaks)', () => {
    for (const bad of ['\t', '\n', '\r', ' ', '\u0000', '\u007f', '\u0085']) {
      expect(findConfigureIntegrationProblem({ ...valid, base_url: `https://api.platform-a${bad}.example/` })).toMatchObject({ code: 'invalid_parameter', field: 'base_url' });
      expect(findConfigureIntegrationProblem({ ...valid, base_url: `https://api.platform-a.example/${bad}` })).toMatchObject({ code: 'invalid_parameter', field: 'base_url' });
    }
    expect(findConfigureIntegrationProblem({ ...valid, base_url: 'https://bücher.example/api/ü' })).toBeUndefined();
  });

  it('empty and overlong values keep their own messages', () => {
    expect(findConfigureIntegrationProblem({ ...valid, api_key: '' })).toMatchObject({ code: 'invalid_parameter', field: 'api_key', message: 'api_key must not be empty.' });
    expect(findConfigureIntegrationProblem({ ...valid, webhook_secret: 'x'.repeat(501) })).toMatchObject({
      code: 'invalid_parameter',
      field: 'webhook_secret',
      message: 'webhook_secret must be at most 500 characters.',
    });
  });
});
