/**
 * Checks real HTTP responses against the gateway's own OpenAPI document
 * (GET /v1/openapi.json): the status must be documented for the operation, the
 * content type must be one it lists, the body must satisfy that media type's
 * schema (Ajv, JSON Schema 2020-12 as in OpenAPI 3.1) and every header the
 * response declares as required must be present and match its schema.
 *
 * `checkedClient` / `checkedSystem` wrap the e2e ApiClient so that every
 * response a test receives is checked that way before the test sees it.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { clientOf, type ApiClient, type ApiResponse } from './http.js';
import type { RunningSystem, TestAccount } from './system.js';

// ajv and ajv-formats are CommonJS: under ESM the class sits on `.default`.
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as unknown as typeof Ajv2020Module.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as typeof addFormatsModule.default;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const DOC_ID = 'https://openapi.test/document.json';
const DATA_KEYWORDS = new Set(['example', 'examples', 'enum', 'const', 'default']);

export interface Operation {
  method: string;
  path: string;
  spec: any;
}

export interface Checked {
  method: string;
  path: string;
  status: number;
}

export interface OpenApiValidator {
  document: any;
  operations: Operation[];
  /** Every response validated so far, by operation template. */
  checked: Checked[];
  /** The operation whose path template matches a concrete request path (literal segments win over parameters). */
  operationFor(method: string, url: string): Operation;
  /** Throws a readable error unless the response is one the document describes for this request; returns the response. */
  check<T extends ApiResponse>(method: string, url: string, res: T): T;
  /** Compiles every component schema (fails on a schema Ajv rejects in strict mode). */
  compileAll(): void;
  /**
   * Every example in the document that does not satisfy its own schema: schema `examples` anywhere (components,
   * nested properties, inline schemas), and the `example` / named `examples` of media types, parameters and headers.
   */
  invalidExamples(): string[];
  /**
   * What has no example although the docs page would show one: component schemas, parameters, request bodies and
   * success (2xx) bodies — except binary bodies (format: binary), which JSON cannot hold.
   */
  missingExamples(): string[];
  /** Why a body a webhook endpoint received is not what the document's `webhooks` section says of its type; undefined when it is. */
  webhookBodyProblem(body: { type?: unknown }): string | undefined;
}

function templatePattern(template: string): RegExp {
  const body = template
    .split('/')
    .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}$`);
}

const literalSegments = (template: string) => template.split('/').filter((s) => s && !s.startsWith('{')).length;

export function openApiValidator(document: any): OpenApiValidator {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true, strictRequired: false });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  // The document's components are reachable as DOC_ID#/components/schemas/<name>; only this keyword is added.
  ajv.addVocabulary(['components']);
  ajv.addSchema({ $id: DOC_ID, components: document.components });
  const compiled = new Map<string, ValidateFunction>();
  const compile = (key: string, schema: unknown): ValidateFunction => {
    let validate = compiled.get(key);
    if (!validate) {
      const absolute = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`));
      validate = ajv.compile(absolute);
      compiled.set(key, validate);
    }
    return validate;
  };

  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(document.paths ?? {})) {
    for (const method of HTTP_METHODS) if (item[method]) operations.push({ method: method.toUpperCase(), path, spec: item[method] });
  }
  const checked: Checked[] = [];

  const operationFor = (method: string, url: string): Operation => {
    const pathname = new URL(url, 'http://x').pathname;
    const candidates = operations
      .filter((op) => op.method === method.toUpperCase() && templatePattern(op.path).test(pathname))
      .sort((a, b) => literalSegments(b.path) - literalSegments(a.path));
    if (!candidates[0]) throw new Error(`OpenAPI: no operation documents ${method} ${pathname}`);
    return candidates[0];
  };

  const check = <T extends ApiResponse>(method: string, url: string, res: T): T => {
    const op = operationFor(method, url);
    const where = `${op.method} ${op.path} → ${res.status}`;
    const response = op.spec.responses?.[String(res.status)];
    if (!response) throw new Error(`OpenAPI: status ${res.status} is not documented for ${op.method} ${op.path} (body: ${res.text.slice(0, 300)})`);

    for (const [name, header] of Object.entries<any>(response.headers ?? {})) {
      const value = res.headers.get(name);
      if (value === null) {
        if (header.required) throw new Error(`OpenAPI: ${where}: required header ${name} is missing`);
        continue;
      }
      const validate = compile(`${where} header ${name}`, header.schema ?? {});
      if (!validate(value)) throw new Error(`OpenAPI: ${where}: header ${name}: ${value} — ${ajv.errorsText(validate.errors)}`);
    }

    const contentType = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (!response.content) {
      if (res.text !== '') throw new Error(`OpenAPI: ${where} documents no body, got ${contentType}: ${res.text.slice(0, 200)}`);
    } else {
      const media = response.content[contentType];
      if (!media) throw new Error(`OpenAPI: ${where}: content type ${contentType || '(none)'} is not one of ${Object.keys(response.content).join(', ')}`);
      const body = contentType === 'application/json' ? JSON.parse(res.text) : res.text;
      const validate = compile(`${where} ${contentType}`, media.schema ?? {});
      if (!validate(body)) {
        throw new Error(`OpenAPI: ${where} (${contentType}) body does not match: ${ajv.errorsText(validate.errors, { separator: '\n  ' })}\n  body: ${res.text.slice(0, 500)}`);
      }
    }
    checked.push({ method: op.method, path: op.path, status: res.status });
    return res;
  };

  const compileAll = () => {
    for (const name of Object.keys(document.components?.schemas ?? {})) compile(`component ${name}`, { $ref: `#/components/schemas/${name}` });
    for (const op of operations) {
      for (const [status, response] of Object.entries<any>(op.spec.responses ?? {})) {
        for (const [type, media] of Object.entries<any>(response.content ?? {})) compile(`${op.method} ${op.path} → ${status} ${type}`, media.schema ?? {});
      }
      const body = op.spec.requestBody?.content?.['application/json']?.schema;
      if (body) compile(`${op.method} ${op.path} request`, body);
    }
  };

  const invalidExamples = () => {
    const problems: string[] = [];
    const verify = (where: string, schema: unknown, value: unknown) => {
      const validate = compile(`example schema ${where}`, schema ?? {});
      if (!validate(value)) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
    };
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) {
        node.forEach((item, i) => walk(item, `${where}[${i}]`));
        return;
      }
      if (node === null || typeof node !== 'object') return;
      const object = node as Record<string, any>;
      // A schema: JSON Schema's `examples` array, each validated against the schema holding it.
      if (Array.isArray(object.examples)) object.examples.forEach((example: unknown, i: number) => verify(`${where}.examples[${i}]`, object, example));
      // A media type, parameter or header: `example`, or named `examples` ({ key: { value } }), against its `schema`.
      if (object.schema !== null && typeof object.schema === 'object') {
        if ('example' in object) verify(`${where}.example`, object.schema, object.example);
        if (object.examples && !Array.isArray(object.examples)) {
          for (const [key, example] of Object.entries<any>(object.examples)) verify(`${where}.examples.${key}`, object.schema, example?.value);
        }
      }
      for (const [key, value] of Object.entries(object)) {
        // Example values, enums, consts and defaults are data, not more schemas or media types to look into.
        if (!DATA_KEYWORDS.has(key)) walk(value, `${where}.${key}`);
      }
    };
    walk(document.components ?? {}, 'components');
    walk(document.paths ?? {}, 'paths');
    walk(document.webhooks ?? {}, 'webhooks');
    return problems;
  };

  const missingExamples = () => {
    const missing: string[] = [];
    const lacks = (holder: any) => holder.example === undefined && (holder.examples === undefined || Object.keys(holder.examples).length === 0);
    for (const [name, schema] of Object.entries<any>(document.components?.schemas ?? {})) {
      if (!Array.isArray(schema.examples) || schema.examples.length === 0) missing.push(`components.schemas.${name}`);
    }
    for (const op of operations) {
      const name = `${op.method} ${op.path}`;
      for (const parameter of op.spec.parameters ?? []) if (lacks(parameter)) missing.push(`${name} parameter ${parameter.name} (${parameter.in})`);
      for (const [type, media] of Object.entries<any>(op.spec.requestBody?.content ?? {})) if (lacks(media)) missing.push(`${name} request ${type}`);
      for (const [status, response] of Object.entries<any>(op.spec.responses ?? {})) {
        if (!/^2\d\d$/.test(status)) continue;
        for (const [type, media] of Object.entries<any>(response.content ?? {})) {
          if (media.schema?.format !== 'binary' && lacks(media)) missing.push(`${name} → ${status} ${type}`);
        }
      }
    }
    return missing;
  };

  const webhookBodyProblem = (body: { type?: unknown }): string | undefined => {
    const type = String(body.type);
    const schema = document.webhooks?.[type]?.post?.requestBody?.content?.['application/json']?.schema;
    if (!schema) return `the document's webhooks section has no ${type}`;
    const validate = compile(`webhook ${type}`, schema);
    return validate(body) ? undefined : `${type}: ${ajv.errorsText(validate.errors)}`;
  };

  return { document, operations, checked, operationFor, check, compileAll, invalidExamples, missingExamples, webhookBodyProblem };
}

/** Loads the document the running gateway serves. */
export async function loadOpenApi(baseUrl: string): Promise<OpenApiValidator> {
  const res = await fetch(new URL('/v1/openapi.json', baseUrl));
  if (res.status !== 200) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
  return openApiValidator(await res.json());
}

/** An ApiClient whose every response is checked against the document (OpenApiValidator.check) before the caller sees it. */
export function checkedClient(client: ApiClient, oa: OpenApiValidator): ApiClient {
  return clientOf(async (method, path, options) => oa.check(method, path, await client.request(method, path, options)));
}

export interface CheckedSystem extends RunningSystem {
  /** The document the system's gateway serves, and the record of every response checked against it. */
  openapi: OpenApiValidator;
}

/**
 * The same running system, but every client it hands out (anonymous, client(key), createAccount's api) checks
 * each response against the gateway's own document. Loads the document from the gateway.
 */
export async function checkedSystem(system: RunningSystem): Promise<CheckedSystem> {
  const oa = await loadOpenApi(system.baseUrl);
  return {
    ...system,
    openapi: oa,
    anonymous: checkedClient(system.anonymous, oa),
    client: (apiKey) => checkedClient(system.client(apiKey), oa),
    createAccount: async (input): Promise<TestAccount> => {
      const account = await system.createAccount(input);
      return { ...account, api: checkedClient(account.api, oa) };
    },
  };
}
