/**
 * The documented agent request schemas are read from the contract classes (payloadSchema), but the
 * metadata rules are written beside them and the reading itself could be wrong: mutated bodies must get
 * the same verdict from both, and a refusal must name a field the schema also finds wrong.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';
import {
  findCreateAgentProblem,
  findUpdateAgentProblem,
  isIanaTimeZone,
  TIME_OF_DAY_PATTERN,
} from '../../libs/contracts/src/agent-payloads.js';
import type { ServiceError } from '../../libs/contracts/src/errors.js';
import { REQUEST_EXAMPLES } from '../../apps/api-gateway/src/openapi/examples.js';
import { componentSchemas } from '../../apps/api-gateway/src/openapi/schemas.js';

// ajv and ajv-formats are CommonJS: under ESM the class sits on `.default`.
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as unknown as typeof Ajv2020Module.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as typeof addFormatsModule.default;

const DOCUMENT_ID = 'https://openapi.test/components.json';
const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true, strictRequired: false });
addFormats(ajv);
ajv.addVocabulary(['components']);
ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: JSON.parse(JSON.stringify(componentSchemas()).replaceAll('"#/components/', `"${DOCUMENT_ID}#/components/`)) } });
const schemaOf = (component: string): ValidateFunction => ajv.compile({ $ref: `${DOCUMENT_ID}#/components/schemas/${component}` });

type Body = Record<string, unknown>;
type Path = (string | number)[];

const schedule = [
  { day: 'monday', open: '09:00', close: '17:30' },
  { day: 'saturday', open: '10:00', close: '14:00' },
];
const everyCreateField = {
  name: 'Front desk',
  voice_platform: 'platform_a',
  phone_number: '+14155550100',
  voice_id: 'rachel',
  language: 'fr',
  system_prompt: 'You are polite.',
  welcome_message: 'Hello!',
  transfer_number: '+442071838750',
  business_hours: { timezone: 'Europe/Paris', schedule },
  recording_enabled: true,
  transcription_enabled: false,
  metadata: { team: 'sales', 'region.eu-1': 'west' },
};
const namedExamples = (component: keyof typeof REQUEST_EXAMPLES) => Object.values(REQUEST_EXAMPLES[component]).map((example) => example.value as Body);

const CREATE_SAMPLES: Body[] = [
  { name: 'Front desk', voice_platform: 'platform_b' },
  everyCreateField,
  {
    name: 'Nulls', voice_platform: 'platform_a', phone_number: null, voice_id: null, language: null, system_prompt: null, welcome_message: null,
    transfer_number: null, business_hours: null, recording_enabled: null, transcription_enabled: null, metadata: null,
  },
  ...namedExamples('CreateAgentRequest'),
];
const UPDATE_SAMPLES: Body[] = [
  {},
  { ...everyCreateField, status: 'paused' },
  { system_prompt: null, welcome_message: null, transfer_number: null, business_hours: null, metadata: null },
  ...namedExamples('UpdateAgentRequest'),
];

const manyKeys = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`key_${i}`, 'v']));
const ODD_VALUES: unknown[] = [
  null, true, false, 0, 1.5, '', ' ', '  padded  ', 'x', 'n'.repeat(100), 'n'.repeat(101), ` ${'n'.repeat(100)} `, '😀'.repeat(100), '😀'.repeat(101),
  'w'.repeat(500), 'w'.repeat(501), 's'.repeat(10_000), 's'.repeat(10_001),
  '+14155550100', '14155550100', '+0415555', '+1234567890123456', '+1 415 555 0100',
  'platform_a', 'platform_c', 'PLATFORM_A', 'en', 'EN', 'eng', 'xx', 'active', 'paused', 'deleted',
  'monday', 'Monday', 'sunday', '00:00', '09:00', '23:59', '24:00', '9:00', '18:00',
  'Europe/Paris', 'UTC', 'America/Argentina/Buenos_Aires', 'Mars/Phobos', 'europe/paris', '+01:00',
  [], ['x'], [{}], [[]], {}, { team: 'sales' }, { 'bad key': 'x' }, { ['k'.repeat(41)]: 'x' }, { k: 'v'.repeat(500) }, { k: 'v'.repeat(501) }, { k: 5 },
  { k: null }, manyKeys, { day: 'friday', open: '09:00', close: '17:00' }, { timezone: 'UTC', schedule: [{ day: 'sunday', open: '00:00', close: '23:59' }] },
  Array.from({ length: 8 }, () => ({ day: 'monday', open: '09:00', close: '17:00' })),
  JSON.parse('{"__proto__": "x"}'), { constructor: 'x' }, { prototype: 'x' },
];
const ADDED_KEYS = ['colour', 'id', 'status', 'created_at', 'updated_at', '__proto__', 'constructor'];
const ADDED_VALUES: unknown[] = ['extra', 'paused', null];

type Mutation = { kind: 'set'; value: unknown } | { kind: 'delete' } | { kind: 'add'; key: string; value: unknown };

/** Every location in a value, and every body field even where the sample leaves it out. */
function pathsOf(value: unknown, fields: readonly string[], prefix: Path = []): Path[] {
  const inside = (v: unknown, p: Path): Path[] => {
    if (Array.isArray(v)) return [p, ...v.flatMap((item, i) => inside(item, [...p, i]))];
    if (v && typeof v === 'object') return [p, ...Object.entries(v).flatMap(([k, item]) => inside(item, [...p, k]))];
    return [p];
  };
  const present = inside(value, prefix);
  const absent = fields.filter((field) => !(value && typeof value === 'object' && field in value)).map((field) => [field]);
  return [...present, ...absent];
}

function mutate(sample: Body, path: Path, mutation: Mutation): unknown {
  const copy = structuredClone(sample) as Record<string | number, unknown>;
  if (path.length === 0) return mutation.kind === 'set' ? mutation.value : copy;
  let parent: any = copy;
  for (const key of path.slice(0, -1)) parent = parent[key];
  const last = path[path.length - 1];
  if (mutation.kind === 'set') parent[last] = mutation.value;
  else if (mutation.kind === 'delete') Array.isArray(parent) ? parent.splice(Number(last), 1) : delete parent[last];
  else if (parent[last] && typeof parent[last] === 'object' && !Array.isArray(parent[last])) {
    Object.defineProperty(parent[last], mutation.key, { value: mutation.value, enumerable: true, configurable: true, writable: true });
  }
  return copy;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The rules JSON Schema cannot state, which the classes enforce in code: the time zone must be one Intl
 * knows, a weekday appears once, a day closes after it opens.
 */
function breaksUnstatedRule(body: unknown): boolean {
  const hours = isPlainObject(body) ? body.business_hours : undefined;
  if (!isPlainObject(hours)) return false;
  if (typeof hours.timezone === 'string' && !isIanaTimeZone(hours.timezone)) return true;
  if (!Array.isArray(hours.schedule)) return false;
  const items = hours.schedule.filter(isPlainObject);
  const days = items.map((item) => item.day).filter((day) => typeof day === 'string');
  if (new Set(days).size < days.length) return true;
  const isTime = (v: unknown): v is string => typeof v === 'string' && TIME_OF_DAY_PATTERN.test(v);
  return items.some((item) => isTime(item.open) && isTime(item.close) && item.close <= item.open);
}

/** The classes trim the name before checking it; the schema states the trimmed rules ("Trimmed" in its description). */
const withTrimmedName = (body: unknown): unknown =>
  isPlainObject(body) && typeof body.name === 'string' ? { ...body, name: body.name.trim() } : body;

/** The field an ajv error is about, written like a ServiceError field (`business_hours.schedule[0].open`). */
function fieldOf(error: ErrorObject, body: unknown): string {
  const segments = error.instancePath.split('/').slice(1).map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  const params = error.params as { missingProperty?: string; additionalProperty?: string; propertyName?: string };
  const last = params.missingProperty ?? params.additionalProperty ?? params.propertyName;
  if (last !== undefined) segments.push(last);
  let path = '';
  let value: any = body;
  for (const segment of segments) {
    path = Array.isArray(value) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment;
    value = value?.[segment];
  }
  return path;
}

function agreementOn(find: (body: unknown) => ServiceError | undefined, validate: ValidateFunction, body: unknown) {
  const problem = find(body);
  // The schema cannot see these: only the classes' refusal is checked.
  if (breaksUnstatedRule(body)) return { byClasses: problem === undefined, bySchema: false, fieldInSchemaErrors: true };
  const bySchema = validate(withTrimmedName(body)) as boolean;
  const schemaFields = (validate.errors ?? []).map((error) => fieldOf(error, body));
  const field = problem?.field ?? '';
  // The API may name a spot inside the value the schema finds wrong (a reserved key is refused wherever it sits).
  const within = (outer: string) => outer === '' || field === outer || field.startsWith(`${outer}.`) || field.startsWith(`${outer}[`);
  return {
    byClasses: problem === undefined,
    bySchema,
    fieldInSchemaErrors: problem === undefined || schemaFields.some(within) || { field, schemaFields },
  };
}

const mutationArbitrary: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...ODD_VALUES).map((value) => ({ kind: 'set', value }) as Mutation) },
  { weight: 2, arbitrary: fc.constant({ kind: 'delete' } as Mutation) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...ADDED_KEYS), fc.constantFrom(...ADDED_VALUES)).map(([key, value]) => ({ kind: 'add', key, value }) as Mutation) },
);

const FIELDS = [...Object.keys(everyCreateField), 'status'];
const PAYLOADS = [
  { name: 'CreateAgentRequest', find: findCreateAgentProblem, samples: CREATE_SAMPLES },
  { name: 'UpdateAgentRequest', find: findUpdateAgentProblem, samples: UPDATE_SAMPLES },
] as const;

describe.each(PAYLOADS)('the $name schema agrees with the contract classes', ({ name, find, samples }) => {
  const validate = schemaOf(name);

  it('accepts every sample, like the classes', () => {
    for (const sample of samples) expect([find(sample), validate(sample) || validate.errors]).toEqual([undefined, true]);
  });

  it('gives the same verdict on thousands of mutated bodies, and finds fault with the field the API names', () => {
    const mutated = fc
      .constantFrom(...samples)
      .chain((sample) => fc.tuple(fc.constant(sample), fc.constantFrom(...pathsOf(sample, FIELDS)), mutationArbitrary));
    fc.assert(
      fc.property(mutated, ([sample, path, mutation]) => {
        const body = mutate(sample, path, mutation);
        const { byClasses, bySchema, fieldInSchemaErrors } = agreementOn(find, validate, body);
        expect({ path: path.join('.'), mutation, byClasses, fieldInSchemaErrors }).toEqual({
          path: path.join('.'), mutation, byClasses: bySchema, fieldInSchemaErrors: true,
        });
      }),
      { numRuns: 3000, seed: 20250131 },
    );
  });

  it('leaves to the classes only the rules it states in words: a known time zone, each weekday once, closing after opening', () => {
    const hours = (timezone: string, items: object[]) => ({ ...samples[0], name: 'Hours', business_hours: { timezone, schedule: items } });
    const monday = { day: 'monday', open: '09:00', close: '17:00' };
    for (const body of [hours('Mars/Phobos', [monday]), hours('UTC', [monday, monday]), hours('UTC', [{ ...monday, close: '09:00' }])]) {
      expect({ body, byClasses: find(body)?.field, bySchema: validate(body) }).toEqual({ body, byClasses: expect.stringMatching(/^business_hours\./), bySchema: true });
    }
  });
});
