import { describe, expect, it } from '@jest/globals';
import { errorCodesOf, toJsonSchemaNulls } from './openapi-document.js';
import { viewSchema } from './json-schema.js';

describe('errorCodesOf', () => {
  it('adds the authentication, permission and availability errors to a scoped route', () => {
    expect(errorCodesOf({ kind: 'scope', scope: 'agents:read' }, 'GET', ['not_found'])).toEqual([
      'authentication_required', 'invalid_api_key', 'insufficient_permissions', 'not_found', 'internal_error', 'service_unavailable',
    ]);
  });

  it('adds the body errors the HTTP pipeline answers to routes that take a body', () => {
    const codes = errorCodesOf({ kind: 'scope', scope: 'agents:write' }, 'PATCH', []);
    expect(codes).toEqual(expect.arrayContaining(['invalid_json', 'invalid_request', 'payload_too_large', 'unsupported_media_type']));
    expect(errorCodesOf({ kind: 'scope', scope: 'agents:write' }, 'DELETE', [])).not.toContain('invalid_json');
  });

  it('gives an admin route no permission error and a public route only internal_error', () => {
    expect(errorCodesOf({ kind: 'admin' }, 'POST', [])).not.toContain('insufficient_permissions');
    expect(errorCodesOf({ kind: 'admin' }, 'POST', [])).toContain('invalid_api_key');
    expect(errorCodesOf({ kind: 'public' }, 'GET', [])).toEqual(['internal_error']);
  });
});

describe('toJsonSchemaNulls', () => {
  it('turns OpenAPI 3.0 nullable into 3.1 type arrays, or a oneOf with null when there is no single type', () => {
    expect(toJsonSchemaNulls({ a: { type: 'string', nullable: true }, b: [{ $ref: '#/x', nullable: true }], c: { nullable: false, type: 'integer' } })).toEqual({
      a: { type: ['string', 'null'] },
      b: [{ oneOf: [{ $ref: '#/x' }, { type: 'null' }] }],
      c: { type: 'integer' },
    });
  });
});

describe('viewSchema', () => {
  it('is closed, and requires every key except the listed optional ones', () => {
    const schema = viewSchema<{ a: string; b?: number }>({ a: { type: 'string' }, b: { type: 'integer' } }, { optional: ['b'] });
    expect(schema).toMatchObject({ type: 'object', required: ['a'], additionalProperties: false });
  });

  it('must name every field of the view and no other (checked by the type-checker: npm run typecheck)', () => {
    // @ts-expect-error a field of the view is missing from the schema
    viewSchema<{ a: string; b: number }>({ a: { type: 'string' } });
    // @ts-expect-error a field the view does not have
    viewSchema<{ a: string }>({ a: { type: 'string' }, z: { type: 'string' } });
  });
});
