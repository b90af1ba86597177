import { describe, expect, it } from '@jest/globals';
import {
  platformAAgentBody, platformAAgentChanges, platformAAgentFromSearch, platformAFailure, platformANumberBody, platformANumberFromAnswer,
} from './management.js';
import type { PlatformAgentSpec } from '../voice-platform.port.js';

const spec: PlatformAgentSpec = {
  external_id: 'agt_0123456789abcdef01234567',
  name: 'Front desk',
  system_prompt: 'You answer calls for a dental practice.',
  welcome_message: 'Hello, how can I help?',
  voice_id: 'pa-voice-warm',
  language: 'en-US',
  transfer_number: '+14155550123',
  webhook_url: 'https://hooks.example/platform_a',
};

describe('platform_a agent bodies', () => {
  it('maps every field of ours on create, our id in metadata.external_id', () => {
    expect(platformAAgentBody(spec)).toEqual({
      agent_name: 'Front desk',
      voice_id: 'pa-voice-warm',
      language: 'en-US',
      prompt: 'You answer calls for a dental practice.',
      begin_message: 'Hello, how can I help?',
      transfer_number: '+14155550123',
      webhook_url: 'https://hooks.example/platform_a',
      metadata: { external_id: 'agt_0123456789abcdef01234567' },
    });
  });

  it('leaves unset optional fields out on create', () => {
    const body = platformAAgentBody({ ...spec, system_prompt: null, welcome_message: null, transfer_number: null });
    expect(body).not.toHaveProperty('prompt');
    expect(body).not.toHaveProperty('begin_message');
    expect(body).not.toHaveProperty('transfer_number');
  });

  it('passes languages through, bare or tagged', () => {
    expect(platformAAgentBody({ ...spec, language: 'fr' }).language).toBe('fr');
    expect(platformAAgentBody({ ...spec, language: 'zh-Hant-TW' }).language).toBe('zh-Hant-TW');
  });

  it('sends only what changed on update, a cleared field as null', () => {
    expect(platformAAgentChanges({ name: 'Reception' })).toEqual({ agent_name: 'Reception' });
    expect(platformAAgentChanges({ system_prompt: null, transfer_number: null })).toEqual({ prompt: null, transfer_number: null });
    expect(platformAAgentChanges({})).toEqual({});
  });
});

describe('platform_a phone numbers', () => {
  it('imports with phone_number, buys with an optional area code, binds with inbound_agent_id', () => {
    expect(platformANumberBody({ phone_number: '+14155550100', platform_agent_id: 'agent_1' })).toEqual({ phone_number: '+14155550100', inbound_agent_id: 'agent_1' });
    expect(platformANumberBody({ area_code: '415', platform_agent_id: null })).toEqual({ area_code: '415', inbound_agent_id: null });
    expect(platformANumberBody({ platform_agent_id: null })).toEqual({ inbound_agent_id: null });
  });

  it('reads the answer: the number is its own id, purchased as the platform says', () => {
    expect(platformANumberFromAnswer({ phone_number: '+14155550100', inbound_agent_id: null, purchased: true }, { platform_agent_id: null })).toEqual({
      phone_number: '+14155550100',
      platform_number_id: '+14155550100',
      purchased: true,
    });
    expect(platformANumberFromAnswer({ nope: 1 }, { platform_agent_id: null })).toBeUndefined();
  });
});

describe('platform_a search', () => {
  it('finds only an agent whose metadata carries our id', () => {
    const items = [{ agent_id: 'agent_other', metadata: { external_id: 'agt_x' } }, { agent_id: 'agent_ours', metadata: { external_id: spec.external_id } }];
    expect(platformAAgentFromSearch({ items }, spec.external_id)).toEqual({ platform_agent_id: 'agent_ours' });
    expect(platformAAgentFromSearch({ items: [] }, spec.external_id)).toBeUndefined();
    expect(platformAAgentFromSearch([], spec.external_id)).toBe('unreadable');
  });
});

describe('platform_a failures', () => {
  const answer = (status: number, error_message?: string, retryAfter?: string) => ({ status, json: error_message === undefined ? undefined : { status, error_message }, retryAfter });

  it('unknown voice → rejected, naming our voice_id field and keeping the platform’s message', () => {
    expect(platformAFailure('agent', answer(422, "voice_id 'x' does not exist"))).toEqual({
      kind: 'rejected',
      status: 422,
      message: "voice_id 'x' does not exist",
      field: 'voice_id',
    });
  });

  it.each([
    ['agent_name must be at most 100 characters (got 120)', 'name'],
    ['prompt must be at most 32000 characters (got 40000)', 'system_prompt'],
    ['begin_message must be at most 1000 characters (got 1200)', 'welcome_message'],
    ["language 'english' is not a BCP 47 language tag", 'language'],
    ["transfer_number '555' is not an E.164 number", 'transfer_number'],
  ])('%s → field %s', (message, field) => {
    expect(platformAFailure('agent', answer(422, message)).field).toBe(field);
  });

  it('401 → invalid_credentials, whatever the operation', () => {
    expect(platformAFailure('agent', answer(401, 'invalid api key')).kind).toBe('invalid_credentials');
    expect(platformAFailure('buy_number', answer(401)).kind).toBe('invalid_credentials');
  });

  it('429 → transient with Retry-After in ms; 5xx and 408 → transient', () => {
    expect(platformAFailure('agent', answer(429, 'slow down', '7'))).toMatchObject({ kind: 'transient', retryAfterMs: 7000 });
    expect(platformAFailure('agent', answer(503))).toMatchObject({ kind: 'transient', status: 503 });
    expect(platformAFailure('agent', answer(408))).toMatchObject({ kind: 'transient' });
  });

  it('409 on an import → number_in_use; 422 on a purchase → number_unavailable; 422 on an import → rejected', () => {
    expect(platformAFailure('import_number', answer(409, 'phone number already registered'))).toMatchObject({ kind: 'number_in_use', field: 'phone_number' });
    expect(platformAFailure('buy_number', answer(422, 'no number available in area 415'))).toMatchObject({ kind: 'number_unavailable' });
    expect(platformAFailure('import_number', answer(422, "phone_number '555' is not an E.164 number"))).toMatchObject({ kind: 'rejected', field: 'phone_number' });
  });

  it('a 422 on a purchase that is a validation refusal stays rejected; one without a message is "no number"', () => {
    expect(platformAFailure('buy_number', answer(422, "area_code '41' must be 3 digits"))).toMatchObject({ kind: 'rejected', field: 'area_code' });
    expect(platformAFailure('buy_number', answer(422, "inbound_agent_id 'agent_x' does not exist"))).toMatchObject({ kind: 'rejected' });
    expect(platformAFailure('buy_number', answer(422))).toMatchObject({ kind: 'number_unavailable' });
  });

  it('404 → not_found; other 4xx → rejected with whatever message there is', () => {
    expect(platformAFailure('number', answer(404, 'not found')).kind).toBe('not_found');
    expect(platformAFailure('agent', answer(400))).toEqual({ kind: 'rejected', status: 400, message: 'the platform answered 400' });
    expect(platformAFailure('agent', answer(403, 'forbidden'))).toMatchObject({ kind: 'rejected', message: 'forbidden' });
  });
});
