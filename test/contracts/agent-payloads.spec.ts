import { describe, expect, it } from '@jest/globals';
import { findCreateAgentProblem, findUpdateAgentProblem, ISO_639_1_CODES, isIanaTimeZone } from '../../libs/contracts/src/agent-payloads.js';

const valid = { name: 'Front desk', voice_platform: 'platform_a' };
const hours = (schedule: unknown[], timezone = 'Europe/Paris') => ({ timezone, schedule });

describe('create agent payload', () => {
  it('accepts the minimal and the complete body', () => {
    expect(findCreateAgentProblem(valid)).toBeUndefined();
    expect(
      findCreateAgentProblem({
        ...valid,
        phone_number: '+14155550100',
        voice_id: 'rachel',
        language: 'fr',
        system_prompt: 'x'.repeat(10_000),
        welcome_message: 'y'.repeat(500),
        transfer_number: '+442071838750',
        business_hours: hours([
          { day: 'monday', open: '09:00', close: '17:30' },
          { day: 'sunday', open: '00:00', close: '23:59' },
        ]),
        recording_enabled: false,
        transcription_enabled: true,
        metadata: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`key_${i}`, 'v'.repeat(500)])),
      }),
    ).toBeUndefined();
  });

  it('treats null optional fields as omitted', () => {
    expect(findCreateAgentProblem({ ...valid, phone_number: null, business_hours: null, metadata: null, recording_enabled: null })).toBeUndefined();
  });

  it.each([
    [{ voice_platform: 'platform_a' }, 'missing_required_field', 'name'],
    [{ name: 'A' }, 'missing_required_field', 'voice_platform'],
    [{}, 'missing_required_field', 'name'],
  ])('reports a missing required field %#', (body, code, field) => {
    expect(findCreateAgentProblem(body)).toMatchObject({ code, field });
  });

  it('lists the valid voice platforms', () => {
    for (const voice_platform of ['platform_c', 42, '', 'PLATFORM_A']) {
      expect(findCreateAgentProblem({ ...valid, voice_platform })).toEqual({
        code: 'invalid_parameter',
        field: 'voice_platform',
        message: expect.any(String),
        valid_values: ['platform_a', 'platform_b'],
      });
    }
  });

  it.each([
    ['name', 42],
    ['name', '   '],
    ['name', 'n'.repeat(101)],
    ['name', null],
    ['phone_number', '4155550100'],
    ['phone_number', '+0415555'],
    ['phone_number', '+1234567890123456'],
    ['phone_number', 14155550100],
    ['transfer_number', '+1 415 555 0100'],
    ['voice_id', ''],
    ['voice_id', 7],
    ['language', 'xx'],
    ['language', 'EN'],
    ['language', 'eng'],
    ['system_prompt', 's'.repeat(10_001)],
    ['welcome_message', 'w'.repeat(501)],
    ['welcome_message', ['hi']],
    ['recording_enabled', 'true'],
    ['transcription_enabled', 1],
    ['metadata', ['a']],
    ['metadata', 'a=b'],
    ['business_hours', 'always'],
    ['business_hours', []],
    ['id', 'agt_1'],
    ['status', 'active'],
    ['created_at', '2024-01-01T00:00:00Z'],
    ['updated_at', '2024-01-01T00:00:00Z'],
    ['nickname', 'Bob'],
  ])('rejects %s = %j with invalid_parameter naming the field', (field, value) => {
    expect(findCreateAgentProblem({ ...valid, [field]: value })).toMatchObject({ code: 'invalid_parameter', field });
  });

  it('accepts a name of exactly 100 characters and trims surrounding whitespace', () => {
    expect(findCreateAgentProblem({ ...valid, name: `  ${'n'.repeat(100)}  ` })).toBeUndefined();
  });

  it('names read-only fields as read-only', () => {
    expect(findCreateAgentProblem({ ...valid, status: 'paused' })?.message).toMatch(/read-only/);
    expect(findCreateAgentProblem({ ...valid, nickname: 'x' })?.message).toMatch(/not a recognised field/);
  });

  it.each([
    [{ a: 1 }, 'metadata.a'],
    [{ good: 'x', bad: 'v'.repeat(501) }, 'metadata.bad'],
    [{ 'has space': 'x' }, 'metadata.has space'],
    [{ ['k'.repeat(41)]: 'x' }, `metadata.${'k'.repeat(41)}`],
    [{ nested: { x: 'y' } }, 'metadata.nested'],
    [Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v'])), 'metadata'],
  ])('checks metadata key by key %#', (metadata, field) => {
    expect(findCreateAgentProblem({ ...valid, metadata })).toMatchObject({ code: 'invalid_parameter', field });
  });

  it.each([
    [hours([{ day: 'monday', open: '9:00', close: '17:00' }]), 'business_hours.schedule[0].open'],
    [hours([{ day: 'monday', open: '09:00', close: '24:00' }]), 'business_hours.schedule[0].close'],
    [hours([{ day: 'monday', open: '09:00', close: '09:00' }]), 'business_hours.schedule[0].close'],
    [hours([{ day: 'monday', open: '18:00', close: '09:00' }]), 'business_hours.schedule[0].close'],
    [hours([{ day: 'monday', open: '09:00', close: '17:00' }, { day: 'Funday', open: '09:00', close: '17:00' }]), 'business_hours.schedule[1].day'],
    [hours([{ day: 'monday', open: '09:00', close: '17:00' }, { day: 'monday', open: '18:00', close: '19:00' }]), 'business_hours.schedule[1].day'],
    [hours([{ day: 'monday', open: '09:00', close: '17:00', lunch: true }]), 'business_hours.schedule[0].lunch'],
    [hours([42]), 'business_hours.schedule[0]'],
    [hours([{ day: 'monday', open: '09:00', close: '17:00' }], 'Mars/Olympus'), 'business_hours.timezone'],
    [hours([{ day: 'monday', open: '09:00', close: '17:00' }], '+02:00'), 'business_hours.timezone'],
    [hours([]), 'business_hours.schedule'],
    [{ schedule: [{ day: 'monday', open: '09:00', close: '17:00' }] }, 'business_hours.timezone'],
    [{ timezone: 'UTC', schedule: 'weekdays' }, 'business_hours.schedule'],
  ])('checks business_hours with a precise path %#', (business_hours, field) => {
    expect(findCreateAgentProblem({ ...valid, business_hours })).toMatchObject({ field });
  });

  it.each([
    [{ timezone: 'UTC', schedule: [[]] }, 'business_hours.schedule[0]', 'must be an object with day, open and close'],
    [{ timezone: 'UTC', schedule: [{ day: 'monday', open: '09:00', close: '17:00' }, []] }, 'business_hours.schedule[1]', 'must be an object'],
    [{ timezone: 'UTC', schedule: [1] }, 'business_hours.schedule[0]', 'must be an object'],
    [{ timezone: 'UTC', schedule: 'x' }, 'business_hours.schedule', 'must be an array'],
    [{ timezone: 'UTC', schedule: {} }, 'business_hours.schedule', 'must be an array'],
  ])('refuses schedule items that are not objects, with the rule that was broken %#', (business_hours, field, text) => {
    for (const find of [findCreateAgentProblem, findUpdateAgentProblem]) {
      const problem = find({ ...valid, business_hours });
      expect(problem).toMatchObject({ code: 'invalid_parameter', field });
      expect(problem?.message).toContain(text);
    }
  });

  it('counts metadata values in characters, as name and the prompts are counted', () => {
    const emoji = '\u{1F600}';
    expect(findCreateAgentProblem({ ...valid, metadata: { mood: emoji.repeat(500) } })).toBeUndefined();
    expect(findCreateAgentProblem({ ...valid, metadata: { mood: emoji.repeat(501) } })).toMatchObject({ field: 'metadata.mood' });
    expect(findCreateAgentProblem({ ...valid, name: emoji.repeat(100) })).toBeUndefined();
  });

  it('reports a missing nested field as missing_required_field', () => {
    expect(findCreateAgentProblem({ ...valid, business_hours: { schedule: [{ day: 'monday', open: '09:00', close: '17:00' }] } })).toMatchObject({
      code: 'missing_required_field',
      field: 'business_hours.timezone',
    });
  });

  it.each([
    ['{"name":"a","voice_platform":"platform_a","__proto__":{"x":1}}', '__proto__'],
    ['{"name":"a","voice_platform":"platform_a","constructor":"x"}', 'constructor'],
    ['{"name":"a","voice_platform":"platform_a","metadata":{"__proto__":"x"}}', 'metadata.__proto__'],
    [
      '{"name":"a","voice_platform":"platform_a","business_hours":{"timezone":"UTC","schedule":[{"day":"monday","open":"09:00","close":"10:00","__proto__":{}}]}}',
      'business_hours.schedule[0].__proto__',
    ],
  ])('refuses prototype-polluting keys that class-transformer would drop silently %#', (json, field) => {
    expect(findCreateAgentProblem(JSON.parse(json))).toMatchObject({ code: 'invalid_parameter', field });
    if (!field.startsWith('business')) expect(findUpdateAgentProblem(JSON.parse(json.replace('"name":"a","voice_platform":"platform_a",', '')))).toMatchObject({ field });
  });

  it.each([
    ['{"name":{"prototype":false},"voice_platform":"platform_a"}', 'name'],
    ['{"name":"a","voice_platform":{"__proto__":"platform_a"}}', 'voice_platform'],
    ['{"name":"a","voice_platform":"platform_a","business_hours":{"timezone":{"constructor":1},"schedule":[]}}', 'business_hours.timezone'],
  ])('names a field of the wrong type as such, not a reserved key inside its value %#', (json, field) => {
    expect(findCreateAgentProblem(JSON.parse(json))).toMatchObject({ field });
  });

  it('rejects a body that is not an object', () => {
    for (const body of [null, [], 'x', 3]) expect(findCreateAgentProblem(body)).toMatchObject({ code: 'invalid_request' });
  });
});

describe('update agent payload', () => {
  it('accepts an empty patch, a status change and clearing clearable fields', () => {
    expect(findUpdateAgentProblem({})).toBeUndefined();
    expect(findUpdateAgentProblem({ status: 'paused' })).toBeUndefined();
    expect(
      findUpdateAgentProblem({ system_prompt: null, welcome_message: null, transfer_number: null, business_hours: null, metadata: null }),
    ).toBeUndefined();
  });

  it.each(['name', 'voice_platform', 'phone_number', 'voice_id', 'language', 'recording_enabled', 'transcription_enabled', 'status'])(
    'refuses null for %s',
    (field) => {
      expect(findUpdateAgentProblem({ [field]: null })).toMatchObject({ code: 'invalid_parameter', field });
    },
  );

  it('lists the valid statuses; deleted is not settable', () => {
    for (const status of ['deleted', 'archived', 1]) {
      expect(findUpdateAgentProblem({ status })).toMatchObject({ code: 'invalid_parameter', field: 'status', valid_values: ['active', 'paused'] });
    }
  });

  it('refuses read-only and unknown fields', () => {
    expect(findUpdateAgentProblem({ id: 'x' })).toMatchObject({ code: 'invalid_parameter', field: 'id', message: expect.stringMatching(/read-only/) });
    expect(findUpdateAgentProblem({ colour: 'x' })).toMatchObject({ code: 'invalid_parameter', field: 'colour' });
  });

  it('applies the create rules to the fields given', () => {
    expect(findUpdateAgentProblem({ name: 'n'.repeat(101) })).toMatchObject({ field: 'name' });
    expect(findUpdateAgentProblem({ metadata: { k: 2 } })).toMatchObject({ field: 'metadata.k' });
    expect(findUpdateAgentProblem({ business_hours: hours([{ day: 'monday', open: '10:00', close: '09:00' }]) })).toMatchObject({
      field: 'business_hours.schedule[0].close',
    });
  });
});

describe('reference data', () => {
  it('ships all 184 ISO 639-1 codes, each a known language', () => {
    expect(new Set(ISO_639_1_CODES).size).toBe(184);
    const names = new Intl.DisplayNames(['en'], { type: 'language' });
    for (const code of ISO_639_1_CODES) expect(names.of(code)).not.toBe(code);
  });
  it('knows IANA zones and refuses the rest', () => {
    for (const tz of ['UTC', 'Europe/Paris', 'America/Argentina/Buenos_Aires', 'Asia/Kolkata']) expect(isIanaTimeZone(tz)).toBe(true);
    for (const tz of ['Foo/Bar', '+05:00', '', 'europe/paris', 5]) expect(isIanaTimeZone(tz)).toBe(false);
  });
});

describe('agent privacy settings', () => {
  it('accepts pii_redaction in part or whole, and store_content', () => {
    expect(findCreateAgentProblem({ ...valid, pii_redaction: { enabled: true }, store_content: false })).toBeUndefined();
    expect(findCreateAgentProblem({ ...valid, pii_redaction: { enabled: true, categories: ['credit_card', 'caller_number'] } })).toBeUndefined();
    expect(findCreateAgentProblem({ ...valid, pii_redaction: null, store_content: null })).toBeUndefined();
    expect(findUpdateAgentProblem({ pii_redaction: { categories: [] }, store_content: true })).toBeUndefined();
  });

  it.each([
    [{ pii_redaction: 'on' }, 'pii_redaction'],
    [{ pii_redaction: { enabled: 'yes' } }, 'pii_redaction.enabled'],
    [{ pii_redaction: { categories: 'ssn' } }, 'pii_redaction.categories'],
    [{ pii_redaction: { categories: ['ssn', 'name'] } }, 'pii_redaction.categories[1]'],
    [{ pii_redaction: { categories: ['ssn', 'email', 'ssn'] } }, 'pii_redaction.categories[2]'],
    [{ pii_redaction: { enabled: true, retention: 3 } }, 'pii_redaction.retention'],
    [{ store_content: 'no' }, 'store_content'],
  ])('names the field of a wrong setting %#', (body, field) => {
    expect(findCreateAgentProblem({ ...valid, ...body })).toMatchObject({ field });
    expect(findUpdateAgentProblem(body)).toMatchObject({ field });
  });

  it('refuses null on PATCH: the settings cannot be cleared', () => {
    expect(findUpdateAgentProblem({ pii_redaction: null })).toMatchObject({ field: 'pii_redaction' });
    expect(findUpdateAgentProblem({ store_content: null })).toMatchObject({ field: 'store_content' });
  });
});

describe('agent retention setting', () => {
  it('accepts days from 1 to 3650, null or omitted limits, and null for the whole setting on create', () => {
    expect(findCreateAgentProblem({ ...valid, retention: { conversations_days: 1, recordings_days: 3650 } })).toBeUndefined();
    expect(findCreateAgentProblem({ ...valid, retention: { conversations_days: null } })).toBeUndefined();
    expect(findCreateAgentProblem({ ...valid, retention: null })).toBeUndefined();
    expect(findUpdateAgentProblem({ retention: {} })).toBeUndefined();
  });

  it.each([
    [{ retention: 30 }, 'retention'],
    [{ retention: { conversations_days: 0 } }, 'retention.conversations_days'],
    [{ retention: { conversations_days: 3651 } }, 'retention.conversations_days'],
    [{ retention: { conversations_days: 1.5 } }, 'retention.conversations_days'],
    [{ retention: { recordings_days: '30' } }, 'retention.recordings_days'],
    [{ retention: { recordings_days: -1 } }, 'retention.recordings_days'],
    [{ retention: { conversation_days: 30 } }, 'retention.conversation_days'],
  ])('names the field of a wrong retention %#', (body, field) => {
    expect(findCreateAgentProblem({ ...valid, ...body })).toMatchObject({ code: 'invalid_parameter', field });
    expect(findUpdateAgentProblem(body)).toMatchObject({ code: 'invalid_parameter', field });
  });

  it('refuses null on PATCH: the setting is replaced, not cleared', () => {
    expect(findUpdateAgentProblem({ retention: null })).toMatchObject({ field: 'retention' });
  });
});
