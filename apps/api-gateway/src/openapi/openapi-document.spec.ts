import { beforeAll, describe, expect, it } from '@jest/globals';
import { openApiValidator, type OpenApiValidator } from '@voice/testing';
import { gatewayControllers } from '../gateway.module.js';
import { documentationGaps, errorCodesOf, toJsonSchemaNulls } from './openapi-document.js';
import { API_TAGS } from './route-docs.js';
import { standaloneOpenApiDocument } from './standalone-document.js';

const controllers = gatewayControllers({ adminToken: 'configured', rpcTimeoutMs: 1000 });

describe('the document (built from the controllers, without a database or NATS)', () => {
  let oa: OpenApiValidator;

  beforeAll(async () => {
    oa = openApiValidator(await standaloneOpenApiDocument({ adminToken: 'configured' }));
  });

  it('gives every operation exactly one tag, declared at the top level with a description, so the docs page lists it once', () => {
    const declared = new Map<string, string>(oa.document.tags.map((t: { name: string; description: string }) => [t.name, t.description]));
    for (const op of oa.operations) {
      expect([op.method, op.path, op.spec.tags]).toEqual([op.method, op.path, [expect.any(String)]]);
      expect([op.method, op.path, declared.get(op.spec.tags[0])]).toEqual([op.method, op.path, API_TAGS[op.spec.tags[0] as keyof typeof API_TAGS]]);
    }
    // Every declared tag is used, in the display order of API_TAGS, and has a description.
    const used = new Set(oa.operations.map((op) => op.spec.tags[0]));
    expect([...declared.keys()]).toEqual(Object.keys(API_TAGS).filter((name) => used.has(name)));
    for (const description of declared.values()) expect(description.length).toBeGreaterThan(20);
  });

  it('states a bound for every path and query parameter: strings a maxLength or an enum, integers a maximum where the server has one', () => {
    const unbounded: string[] = [];
    for (const op of oa.operations) {
      for (const param of (op.spec.parameters ?? []) as Array<{ name: string; in: string; schema: Record<string, unknown> }>) {
        if (param.in !== 'path' && param.in !== 'query') continue;
        const { schema } = param;
        const bounded = schema.type === 'string' ? schema.maxLength !== undefined || schema.enum !== undefined : true;
        if (!bounded) unbounded.push(`${op.method.toUpperCase()} ${op.path} ${param.in} ${param.name}`);
        if (param.name === 'per_page') expect(schema).toMatchObject({ minimum: 1, maximum: 100 });
      }
    }
    expect(unbounded).toEqual([]);
  });

  it('drops the Admin tag with the admin route when no admin token is configured', async () => {
    const doc = await standaloneOpenApiDocument({});
    expect(doc.tags!.map((t) => t.name)).not.toContain('Admin');
    expect(doc.paths['/v1/admin/accounts']).toBeUndefined();
  });

  it('describes API keys as opaque vk_ bearer tokens (not JWTs) and the admin token as the same Authorization header', () => {
    const { api_key: apiKey, admin_token: adminToken } = oa.document.components.securitySchemes;
    expect(apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(adminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(JSON.stringify(oa.document.components.securitySchemes)).not.toMatch(/JWT"/);
    expect(apiKey.bearerFormat).toMatch(/^vk_/);
    expect(apiKey.description).toMatch(/vk_/);
    expect(apiKey.description).toMatch(/40 letters or digits/);
    expect(apiKey.description).toMatch(/admin/);
    expect(adminToken.bearerFormat).toBeUndefined();
    expect(adminToken.description).toContain('ADMIN_TOKEN');
    expect(adminToken.description).toContain('Authorization: Bearer');
    expect(adminToken.description).toMatch(/same header/);
  });

  it('has an example for every component, parameter, request body and success body', () => {
    expect(oa.missingExamples()).toEqual([]);
  });

  it('every example satisfies its own schema (components, nested schemas, parameters, headers, bodies)', () => {
    expect(() => oa.compileAll()).not.toThrow();
    expect(oa.invalidExamples()).toEqual([]);
  });

  it('the conversation list example is a full page: items, pagination meta and links as the gateway writes them', () => {
    const example = oa.operationFor('GET', '/v1/conversations').spec.responses['200'].content['application/json'].example;
    expect(example.data).toHaveLength(2);
    expect(example.meta).toMatchObject({ total: 214, page: 2, per_page: 2, total_pages: 107 });
    expect(example.links).toEqual({
      first: 'https://api.example.com/v1/conversations?per_page=2&page=1',
      prev: 'https://api.example.com/v1/conversations?per_page=2&page=1',
      next: 'https://api.example.com/v1/conversations?per_page=2&page=3',
      last: 'https://api.example.com/v1/conversations?per_page=2&page=107',
    });
    const health = oa.operationFor('GET', '/health').spec.responses;
    expect(health['200'].content['application/json'].example.data.status).toBe('ok');
    expect(health['503'].content['application/json'].example.data.status).toBe('unavailable');
  });

  it('the example checks fail on a missing or a wrong example (the checks themselves)', () => {
    const tampered = structuredClone(oa.document);
    delete tampered.paths['/v1/conversations'].get.responses['200'].content['application/json'].example;
    delete tampered.paths['/v1/agents'].get.parameters.find((p: { name: string }) => p.name === 'status').example;
    tampered.paths['/v1/agents'].post.requestBody.content['application/json'].examples.minimal.value.voice_platform = 'platform_z';
    tampered.components.schemas.ConversationDetail.properties.id.examples = [42];
    const checker = openApiValidator(tampered);
    expect(checker.missingExamples()).toEqual(['GET /v1/agents parameter status (query)', 'GET /v1/conversations → 200 application/json']);
    expect(checker.invalidExamples()).toEqual([
      expect.stringContaining('components.schemas.ConversationDetail.properties.id.examples[0]'),
      expect.stringContaining('paths./v1/agents.post.requestBody.content.application/json.examples.minimal'),
    ]);
  });

  it('the webhooks section describes an agent event as precisely as the agent snapshot it is built from', () => {
    const agentEvent = (agent: Record<string, unknown>) => ({
      id: 'evt_1', type: 'agent.updated', timestamp: '2025-03-01T10:00:00.000Z',
      data: { agent: { id: 'agt_1', name: 'Front desk', voice_platform: 'platform_a', status: 'deleted', recording_enabled: true, transcription_enabled: false, ...agent }, version: 2 },
    });
    expect(oa.webhookBodyProblem(agentEvent({ pii_redaction: { enabled: true, categories: ['email', 'caller_number'] }, store_content: false }))).toBeUndefined();
    expect(oa.webhookBodyProblem(agentEvent({}))).toBeUndefined();
    expect(oa.webhookBodyProblem(agentEvent({ voice_platform: 'platform_c' }))).toEqual(expect.any(String));
    expect(oa.webhookBodyProblem(agentEvent({ pii_redaction: { enabled: true, categories: ['email', 'email'] } }))).toEqual(expect.any(String));
  });

  describe('documentationGaps', () => {
    it('finds none between the document and the routes the controllers serve', () => {
      expect(documentationGaps(oa.document, controllers)).toEqual({ undocumented: [], unserved: [] });
    });

    it('names a served route the document lacks, and a documented operation nothing serves', () => {
      const tampered = structuredClone(oa.document);
      delete tampered.paths['/v1/conversations/{id}/transcript'];
      delete tampered.paths['/v1/agents/{id}'].patch;
      tampered.paths['/v1/agents/{id}'].put = { summary: 'Replace an agent', responses: {} };
      expect(documentationGaps(tampered, controllers)).toEqual({
        undocumented: ['GET /v1/conversations/{id}/transcript', 'PATCH /v1/agents/{id}'],
        unserved: ['PUT /v1/agents/{id}'],
      });
    });

    it('names every route of a controller the document was not built from', () => {
      const withoutAdmin = gatewayControllers({ rpcTimeoutMs: 1000 });
      expect(documentationGaps(oa.document, withoutAdmin)).toEqual({ undocumented: [], unserved: ['POST /v1/admin/accounts'] });
    });
  });

  it('documents 429 (Retry-After and the RateLimit headers) on every scoped and admin operation, and the RateLimit headers on their answers but 401', () => {
    for (const op of oa.operations.filter((o) => o.spec.security?.length)) {
      const tooMany = op.spec.responses['429'];
      expect([op.method, op.path, Object.keys(tooMany?.headers ?? {}).sort()]).toEqual([
        op.method, op.path, ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'X-Request-Id'],
      ]);
      if (op.spec['x-required-scope'] === 'admin') continue;
      for (const [status, response] of Object.entries<any>(op.spec.responses)) {
        const limit = response.headers?.['RateLimit-Limit'];
        if (status === '401') expect(limit).toBeUndefined();
        else expect([op.method, op.path, status, limit?.required]).toEqual([op.method, op.path, status, /^(2..|403|409|412|422|429)$/.test(status)]);
      }
    }
  });
});

describe('errorCodesOf', () => {
  it('adds the authentication, permission, rate-limit and availability errors to a scoped route', () => {
    expect(errorCodesOf({ kind: 'scope', scope: 'agents:read' }, 'GET', ['not_found'])).toEqual([
      'authentication_required', 'invalid_api_key', 'insufficient_permissions', 'not_found', 'rate_limited', 'internal_error', 'service_unavailable',
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
