import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { plainToInstance, Transform } from 'class-transformer';
import { IsDefined, IsInt, IsOptional, IsString, Min, ValidateIf, ValidateNested, validateSync } from 'class-validator';
import { CreateAgentPayload, UpdateAgentPayload } from '../../libs/contracts/src/agent-payloads.js';
import { ConfigureIntegrationPayload } from '../../libs/contracts/src/integrations.js';
import { isValidPayloadInstance } from '../../libs/contracts/src/compiled-payload.js';
import { findProblem } from '../../libs/contracts/src/validation.js';

/** What findProblem asked class-validator before the compiled check existed: is there any problem at all? */
function classValidatorAccepts(cls: new () => object, body: object): boolean {
  const instance = plainToInstance(cls, body, { enableImplicitConversion: false });
  return validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true }).length === 0;
}
const compiledAccepts = (cls: new () => object, body: object) => isValidPayloadInstance(plainToInstance(cls, body, { enableImplicitConversion: false }));

class Line {
  @IsDefined() @IsString() sku: string;
  @IsOptional() @IsInt() @Min(1) quantity?: number;
  // A per-constraint condition, which the executor checks before the constraint.
  @IsOptional() @IsString({ validateIf: (line: Line) => line.sku !== 'free-text' }) note?: unknown;
}

class Order {
  @IsDefined() @IsString() id: string;
  @ValidateIf((order: Order) => order.kind === 'bulk') @IsInt({ each: true }) @Min(0, { each: true }) counts?: number[];
  @IsOptional() kind?: string;
  @IsOptional() @ValidateNested({ each: true })
  @Transform(({ value }) => (Array.isArray(value) ? value.map((v) => (v && typeof v === 'object' && !Array.isArray(v) ? plainToInstance(Line, v) : v)) : value))
  lines?: Line[];
}

const SAMPLES: [new () => object, object][] = [
  [CreateAgentPayload, {
    name: ' Front desk ', voice_platform: 'platform_a', voice_id: 'voice_rachel', language: 'en', system_prompt: 'Book appointments.',
    welcome_message: 'Hello!', transfer_number: '+14155550199', recording_enabled: true, transcription_enabled: false, metadata: { clinic: 'downtown' },
    business_hours: { timezone: 'America/New_York', schedule: [{ day: 'monday', open: '09:00', close: '17:00' }, { day: 'friday', open: '08:30', close: '12:00' }] },
  }],
  [CreateAgentPayload, { name: 'Minimal', voice_platform: 'platform_b', phone_number: null, business_hours: null }],
  [UpdateAgentPayload, { name: 'Renamed', status: 'paused', system_prompt: null, business_hours: { timezone: 'Europe/Paris', schedule: [{ day: 'sunday', open: '00:00', close: '23:59' }] } }],
  [UpdateAgentPayload, { metadata: null, recording_enabled: false }],
  [ConfigureIntegrationPayload, { api_key: 'sk_live_abc', webhook_secret: 'whsec_x', base_url: 'https://api.example.com/v1' }],
  [ConfigureIntegrationPayload, { api_key: 'k', webhook_secret: 's', base_url: null }],
  [Order, { id: 'o-1', kind: 'bulk', counts: [0, 3], lines: [{ sku: 'a', quantity: 2 }, { sku: 'free-text', note: 5 }] }],
];

const ODD: unknown[] = [
  undefined, null, true, false, 0, -1, 1.5, '', ' ', 'x', 'x'.repeat(101), 'x'.repeat(10_001), '+14155550123', 'en', 'EN', 'platform_a', 'active', 'paused',
  'https://x.example', 'ftp://x', 'has space', 'tab\tkey', 'monday', '09:00', '24:00', '08:00', 'America/New_York', 'america/new_york', 'UTC', '+01:00', 'Mars/Base', [], [1], ['a'], [[]], [null], [{}],
  [{ day: 'monday', open: '09:00', close: '08:00' }], {}, { a: 'b' }, { timezone: 'UTC' }, { 'bad key!': 'x' }, new Array(8).fill({ day: 'monday', open: '01:00', close: '02:00' }),
];

function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return [prefix, ...value.flatMap((v, i) => paths(v, [...prefix, i]))];
  if (value && typeof value === 'object') return [prefix, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...prefix, k]))];
  return [prefix];
}

function mutate(sample: object, path: (string | number)[], value: unknown, extraKey?: string): object {
  const copy = structuredClone(sample) as Record<string | number, unknown>;
  if (path.length === 0) return extraKey ? { ...copy, [extraKey]: value } : copy;
  let parent: any = copy;
  for (const key of path.slice(0, -1)) parent = parent[key];
  const last = path[path.length - 1];
  if (extraKey && parent[last] && typeof parent[last] === 'object' && !Array.isArray(parent[last])) parent[last][extraKey] = value;
  else if (value === undefined) delete parent[last];
  else parent[last] = value;
  return copy;
}

describe('a payload class compiled into a validity check', () => {
  it('accepts every valid sample, like class-validator', () => {
    for (const [cls, body] of SAMPLES) expect([cls.name, classValidatorAccepts(cls, body), compiledAccepts(cls, body)]).toEqual([cls.name, true, true]);
  });

  it('never accepts a body class-validator refuses (and accepts what it accepts) on thousands of mutated bodies', () => {
    const sample = fc.constantFrom(...SAMPLES).chain(([cls, body]) =>
      fc.tuple(fc.constant(cls), fc.constant(body), fc.constantFrom(...paths(body)), fc.constantFrom(...ODD), fc.option(fc.constantFrom('colour', 'id'), { nil: undefined })));
    fc.assert(
      fc.property(sample, ([cls, body, path, value, extraKey]) => {
        const mutated = mutate(body, path, value, extraKey);
        expect({ path: path.join('.'), value, extraKey, compiled: compiledAccepts(cls, mutated) })
          .toEqual({ path: path.join('.'), value, extraKey, compiled: classValidatorAccepts(cls, mutated) });
      }),
      { numRuns: 4000, seed: 20261127 },
    );
  });

  it('answers "cannot tell" (the slow path) for an object of a class without rules', () => {
    expect(isValidPayloadInstance({})).toBe(false);
    expect(isValidPayloadInstance(new (class Bare {})())).toBe(false);
  });

  it('leaves the error to class-validator: findProblem still names the field', () => {
    expect(findProblem(CreateAgentPayload, { name: '   ', voice_platform: 'platform_a' })).toMatchObject({ field: 'name', message: 'name must not be empty.' });
    expect(findProblem(ConfigureIntegrationPayload, { colour: 'red' })).toMatchObject({ code: 'invalid_parameter', field: 'colour' });
  });
});
