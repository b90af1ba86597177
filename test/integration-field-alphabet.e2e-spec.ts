import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { DEFAULT_API_KEY, startSimulators, type RunningSimulators } from '@voice/platform-simulators';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import type { ApiResponse } from './support/http.js';
import { startSystem, type RunningSystem, type TestAccount } from './support/system.js';

/**
 * PUT /v1/integrations/{platform}, every field fuzzed through the real gateway and agents-service against the
 * platform_a simulator: never a 5xx; a value outside the field's documented alphabet is 400 invalid_parameter on
 * that field; a value inside it is accepted (a key is then sent to the platform exactly as given, so the simulator,
 * told to accept it, verifies it).
 */
const WEBHOOK_SECRET = 'whsec_fuzz_Q9v7R3k1Zt5M';

/** The credentials' alphabet as the README states it (U+0021 to U+007E), written without the implementation's pattern. */
const isVisibleAscii = (text: string) => [...text].every((char) => char.codePointAt(0)! >= 0x21 && char.codePointAt(0)! <= 0x7e);
const codePoints = (text: string) => [...text].length;
const isValidCredential = (value: unknown): value is string => typeof value === 'string' && codePoints(value) >= 1 && codePoints(value) <= 500 && isVisibleAscii(value);

/** What base_url refuses besides being an absolute http(s) URL: C0/C1 controls, space and DEL (and, like every text, an unpaired surrogate). */
const hasControlOrSpace = (text: string) => [...text].some((char) => char.codePointAt(0)! <= 0x20 || (char.codePointAt(0)! >= 0x7f && char.codePointAt(0)! <= 0x9f));
const hasUnpairedSurrogate = (text: string) => /\p{Surrogate}/u.test(text);
function isValidBaseUrl(value: unknown): boolean {
  if (typeof value !== 'string' || codePoints(value) > 2_000 || hasControlOrSpace(value) || hasUnpairedSurrogate(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The characters the issue found answering 500, and their neighbours. */
const HOSTILE = ['\u0000', '\u0001', '\u001f', '\t', '\n', '\r', '\r\n', ' ', '\u007f', '\u0080', '\u0085', '\u009f', '\u00a0', 'é', 'ÿ', 'Ā', 'ключ', '漢', '😀', '\ud800', '\udfff', '\u2028', '\ufeff', '"', '\\', '%', '\u00ad'];
const visibleAscii = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code));
/** Mostly-plausible keys with hostile characters mixed in, arbitrary code points (lone surrogates included), and any JSON. */
const fieldValue = fc.oneof(
  { weight: 2, arbitrary: fc.string({ unit: visibleAscii, minLength: 1, maxLength: 60 }) },
  { weight: 4, arbitrary: fc.string({ unit: fc.oneof({ weight: 6, arbitrary: visibleAscii }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE) }), minLength: 0, maxLength: 60 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 0, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: visibleAscii, minLength: 495, maxLength: 505 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);
const reportedExamples = ['key\u0001', 'key\u007f', 'key\r\nX-Injected: 1', 'ключ-api', 'key\u0100', 'k\u0000'];
/** A value of the wrong type whose only key is one class-transformer drops: named as the field, not the key inside it. */
const reportedShapes: fc.JsonValue[] = [JSON.parse('{"prototype": false}'), JSON.parse('{"constructor": "x"}')];

describe('integration fields: their alphabets, fuzzed through the gateway', () => {
  let system: RunningSystem;
  let account: TestAccount;
  let simulators: RunningSimulators;
  /** Values the API accepted and refused in the current property, so each is known to have tried both sides. */
  let tried = { accepted: 0, refused: 0 };
  const bothSidesTried = () => {
    expect(tried.accepted).toBeGreaterThan(20);
    expect(tried.refused).toBeGreaterThan(20);
  };

  /** One PUT; a 429 of the write budget is waited out (the fuzzing is faster than the per-key rate). */
  async function put(body: unknown): Promise<ApiResponse> {
    for (;;) {
      const res = await account.api.request('PUT', '/v1/integrations/platform_a', { rawBody: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      if (res.status !== 429) {
        tried[res.status === 400 ? 'refused' : 'accepted'] += 1;
        return res;
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000 * Number(res.headers.get('retry-after') ?? 1)));
    }
  }

  const outcome = (res: ApiResponse) => ({ status: res.status, code: res.body?.error?.code, field: res.body?.error?.field });

  beforeEach(() => {
    tried = { accepted: 0, refused: 0 };
  });

  beforeAll(async () => {
    simulators = await startSimulators();
    system = await startSystem();
    account = await system.createAccount({ voice_platforms: ['platform_a'], integrations: false });
  }, 60_000);

  afterAll(async () => {
    await system?.close();
    await simulators?.stop();
  });

  it.each(['key\u0001', 'key\u007f', 'key\r\n', 'ключ', 'key\u0100'])('api_key %j (a byte a header cannot carry): 400 invalid_parameter on api_key, not a 500', async (apiKey) => {
    const res = await put({ api_key: apiKey, webhook_secret: WEBHOOK_SECRET, base_url: simulators.urls.platformA });
    expect(outcome(res)).toEqual({ status: 400, code: 'invalid_parameter', field: 'api_key' });
    expect(res.body.error.message).toContain('visible ASCII');
  });

  it('api_key: never a 5xx; outside visible ASCII → 400 on api_key; inside → sent as given, verified (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fieldValue, async (apiKey) => {
        if (isValidCredential(apiKey)) simulators.platformA.setApiKeys([apiKey]);
        const res = await put({ api_key: apiKey, webhook_secret: WEBHOOK_SECRET, base_url: simulators.urls.platformA });
        if (isValidCredential(apiKey)) {
          expect([JSON.stringify(apiKey), res.status, res.body.data?.status]).toEqual([JSON.stringify(apiKey), 200, 'verified']);
          expect(res.body.data.api_key_hint).toBe(codePoints(apiKey) >= 16 ? apiKey.slice(-4) : '');
        } else {
          expect([JSON.stringify(apiKey), res.status, res.body.error?.field]).toEqual([JSON.stringify(apiKey), 400, 'api_key']);
          expect(['invalid_parameter', 'missing_required_field']).toContain(res.body.error.code);
        }
      }),
      { numRuns: 200, examples: [...reportedExamples, ...reportedShapes].map((key) => [key] as [fc.JsonValue]) },
    );
    simulators.platformA.setApiKeys([DEFAULT_API_KEY]);
    bothSidesTried();
  }, 300_000);

  it('webhook_secret: never a 5xx; outside visible ASCII → 400 on webhook_secret; inside → saved (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fieldValue, async (secret) => {
        const res = await put({ api_key: DEFAULT_API_KEY, webhook_secret: secret, base_url: simulators.urls.platformA });
        if (isValidCredential(secret)) {
          expect([JSON.stringify(secret), res.status, res.body.data?.status]).toEqual([JSON.stringify(secret), 200, 'verified']);
          expect(res.body.data.webhook_secret_hint).toBe(codePoints(secret) >= 16 ? secret.slice(-4) : '');
        } else {
          expect([JSON.stringify(secret), res.status, res.body.error?.field]).toEqual([JSON.stringify(secret), 400, 'webhook_secret']);
        }
      }),
      { numRuns: 200, examples: [...reportedExamples, ...reportedShapes].map((secret) => [secret] as [fc.JsonValue]) },
    );
    bothSidesTried();
  }, 300_000);

  it('base_url: never a 5xx; a control character, space or anything but an absolute http(s) URL → 400 on base_url; otherwise accepted and tried (property)', async () => {
    const underSimulator = fc
      .string({ unit: fc.oneof({ weight: 6, arbitrary: visibleAscii }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE) }), maxLength: 30 })
      .map((suffix) => `${simulators.urls.platformA}/${suffix}`);
    const anyValue = fc.oneof(underSimulator, fc.string({ unit: 'binary', maxLength: 40 }), fc.jsonValue({ maxDepth: 2 }), fc.constant(null));
    await fc.assert(
      fc.asyncProperty(anyValue, async (baseUrl) => {
        const res = await put({ api_key: DEFAULT_API_KEY, webhook_secret: WEBHOOK_SECRET, base_url: baseUrl });
        expect([JSON.stringify(baseUrl), res.status < 500]).toEqual([JSON.stringify(baseUrl), true]);
        if (baseUrl === null) expect(res.status).not.toBe(400);
        else if (isValidBaseUrl(baseUrl)) {
          // Accepted: the platform is asked; a path it does not serve is its refusal, named on base_url.
          expect([JSON.stringify(baseUrl), res.status === 200 || (res.status === 422 && res.body.error.field === 'base_url')]).toEqual([JSON.stringify(baseUrl), true]);
        } else {
          expect([JSON.stringify(baseUrl), outcome(res)]).toEqual([JSON.stringify(baseUrl), { status: 400, code: 'invalid_parameter', field: 'base_url' }]);
        }
      }),
      { numRuns: 150, examples: [[`${simulators.urls.platformA}/\n`], [`${simulators.urls.platformA}/\t`], [` ${simulators.urls.platformA}/`], [`${simulators.urls.platformA}/?q=\u007f`], [`${simulators.urls.platformA}/\ud800`], [`${simulators.urls.platformA}/?\udc00`]] },
    );
    bothSidesTried();
  }, 300_000);

  it('the OpenAPI document states the alphabets as patterns, and its schema agrees with the API on every credential value (property)', async () => {
    const document = (await system.anonymous.get('/v1/openapi.json')).body;
    const schema = document.components.schemas.ConfigureIntegrationRequest;
    expect(schema.properties.api_key).toMatchObject({ type: 'string', minLength: 1, maxLength: 500, pattern: '^[\\x21-\\x7E]+$' });
    expect(schema.properties.webhook_secret).toMatchObject({ type: 'string', minLength: 1, maxLength: 500, pattern: '^[\\x21-\\x7E]+$' });
    expect(schema.properties.base_url.pattern).toBe('^[^\\x00-\\x20\\x7F-\\x9F]+$');
    const ajv = new Ajv2020({ strict: false });
    const credential = ajv.compile(schema.properties.api_key);
    fc.assert(fc.property(fieldValue, (value) => credential(value) === isValidCredential(value)), { numRuns: 2_000 });
  });
});
