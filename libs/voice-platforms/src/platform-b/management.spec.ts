import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  PLATFORM_B_NAME_LIMIT, platformBAgentFromSearch, platformBAssistantBody, platformBAssistantChanges, platformBFailure, platformBLanguage,
  platformBName, platformBNumberBody, platformBNumberFromAnswer, platformBNumberRequestProblem,
} from './management.js';
import type { PlatformAgentSpec } from '../voice-platform.port.js';

const spec: PlatformAgentSpec = {
  external_id: 'agt_0123456789abcdef01234567',
  name: 'Front desk',
  system_prompt: 'You answer calls for a dental practice.',
  welcome_message: 'Hello, how can I help?',
  voice_id: 'pb-voice-warm',
  language: 'en-US',
  transfer_number: '+14155550123',
  webhook_url: 'https://hooks.example/platform_b',
};

/** The random part of our agent ids (agt_ + 24 hex digits). */
const agentIdHex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 24, maxLength: 24 });

const codePoints = (text: string) => Array.from(text).length;

describe('platformBName', () => {
  it('keeps names of at most 40 characters', () => {
    expect(platformBName('Front desk', 'agt_1')).toBe('Front desk');
    const forty = 'x'.repeat(40);
    expect(platformBName(forty, 'agt_1')).toBe(forty);
  });

  it('shortens a longer name to 31 characters, " ~" and 7 hex digits of our id’s hash', () => {
    const name = 'Customer support line for the downtown dental practice';
    const short = platformBName(name, 'agt_1');
    expect(short).toMatch(/^Customer support line for the d ~[0-9a-f]{7}$/);
    expect(short).toHaveLength(40);
    expect(platformBName(name, 'agt_1')).toBe(short);
  });

  it('counts and cuts by code points, never splitting one', () => {
    const name = '😀'.repeat(50);
    const short = platformBName(name, 'agt_1');
    expect(codePoints(short)).toBe(40);
    expect(short.startsWith('😀'.repeat(31) + ' ~')).toBe(true);
    expect(platformBName('😀'.repeat(40), 'agt_1')).toBe('😀'.repeat(40));
  });

  it('never gives two agents with the same long name the same platform name, and never exceeds 40 characters', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 41, maxLength: 100 }),
        agentIdHex,
        agentIdHex,
        (name, firstId, secondId) => {
          fc.pre(firstId !== secondId);
          const first = platformBName(name, `agt_${firstId}`);
          const second = platformBName(name, `agt_${secondId}`);
          return first !== second && codePoints(first) <= PLATFORM_B_NAME_LIMIT && codePoints(second) <= PLATFORM_B_NAME_LIMIT;
        },
      ),
      { numRuns: 500 },
    );
  });

  it('every name, long or short, fits', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 100 }), fc.string({ minLength: 1 }), (name, id) => codePoints(platformBName(name, id)) <= PLATFORM_B_NAME_LIMIT),
    );
  });
});

describe('platformBLanguage', () => {
  it.each([
    ['en', 'en'],
    ['en-US', 'en'],
    ['pt-BR', 'pt'],
    ['zh-Hant-TW', 'zh'],
    ['FR', 'fr'],
    ['es_419', 'es'],
  ])('%s → %s', (ours, theirs) => {
    expect(platformBLanguage(ours)).toBe(theirs);
  });
});

describe('platform_b assistant bodies', () => {
  it('maps every field of ours on create, our id in metadata.externalId', () => {
    expect(platformBAssistantBody(spec)).toEqual({
      name: 'Front desk',
      firstMessage: 'Hello, how can I help?',
      model: { messages: [{ role: 'system', content: 'You answer calls for a dental practice.' }] },
      voice: { voiceId: 'pb-voice-warm' },
      transcriber: { language: 'en' },
      forwardingPhoneNumber: '+14155550123',
      server: { url: 'https://hooks.example/platform_b' },
      metadata: { externalId: 'agt_0123456789abcdef01234567' },
    });
  });

  it('leaves unset optional fields out on create; no prompt is no system message', () => {
    const body = platformBAssistantBody({ ...spec, system_prompt: null, welcome_message: null, transfer_number: null });
    expect(body).not.toHaveProperty('firstMessage');
    expect(body).not.toHaveProperty('forwardingPhoneNumber');
    expect(body.model).toEqual({ messages: [] });
  });

  it('sends only what changed on update, shortening a long name with the agent’s id', () => {
    const long = 'A'.repeat(60);
    expect(platformBAssistantChanges({ name: long }, spec.external_id)).toEqual({ name: platformBName(long, spec.external_id) });
    expect(platformBAssistantChanges({ welcome_message: null, transfer_number: null }, spec.external_id)).toEqual({ firstMessage: null, forwardingPhoneNumber: null });
    expect(platformBAssistantChanges({ language: 'de-DE', voice_id: 'pb-voice-calm' }, spec.external_id)).toEqual({
      transcriber: { language: 'de' },
      voice: { voiceId: 'pb-voice-calm' },
    });
    expect(platformBAssistantChanges({}, spec.external_id)).toEqual({});
  });
});

describe('platform_b phone numbers and search', () => {
  it('imports with number, buys with an optional areaCode, binds with assistantId', () => {
    expect(platformBNumberBody({ phone_number: '+14155550100', platform_agent_id: 'a-1' })).toEqual({ number: '+14155550100', assistantId: 'a-1' });
    expect(platformBNumberBody({ area_code: '212', platform_agent_id: null })).toEqual({ areaCode: '212', assistantId: null });
  });

  it('refuses a purchase without an area code before any call (platform_b sells by area only)', () => {
    expect(platformBNumberRequestProblem({ platform_agent_id: null })).toMatchObject({ kind: 'rejected', field: 'area_code' });
    expect(platformBNumberRequestProblem({ area_code: '212', platform_agent_id: null })).toBeUndefined();
    expect(platformBNumberRequestProblem({ phone_number: '+12125550100', platform_agent_id: null })).toBeUndefined();
  });

  it('keeps the platform’s id and knows from the request whether it bought the number', () => {
    const answer = { id: '3f1c…', number: '+12125550100', assistantId: null };
    expect(platformBNumberFromAnswer(answer, { platform_agent_id: null })).toEqual({ phone_number: '+12125550100', platform_number_id: '3f1c…', purchased: true });
    expect(platformBNumberFromAnswer(answer, { phone_number: '+12125550100', platform_agent_id: null })?.purchased).toBe(false);
  });

  it('finds only an assistant whose metadata carries our id', () => {
    const list = [{ id: 'other', metadata: { externalId: 'agt_x' } }, { id: 'ours', metadata: { externalId: spec.external_id } }];
    expect(platformBAgentFromSearch(list, spec.external_id)).toEqual({ platform_agent_id: 'ours' });
    expect(platformBAgentFromSearch([], spec.external_id)).toBeUndefined();
    expect(platformBAgentFromSearch({ items: [] }, spec.external_id)).toBe('unreadable');
  });
});

describe('platform_b failures', () => {
  const answer = (status: number, message?: string | string[], retryAfter?: string) => ({
    status,
    json: message === undefined ? undefined : { statusCode: status, error: 'Bad Request', message },
    retryAfter,
  });

  it('unknown voice → rejected, naming our voice_id field, the message array joined', () => {
    expect(platformBFailure('agent', answer(400, ['voice.voiceId must be a known voice', 'name must be a string']))).toEqual({
      kind: 'rejected',
      status: 400,
      message: 'voice.voiceId must be a known voice; name must be a string',
      field: 'voice_id',
    });
  });

  it.each([
    ['name must be shorter than or equal to 40 characters', 'name'],
    ['model.messages.0.content must be a string', 'system_prompt'],
    ['firstMessage must be shorter than or equal to 1000 characters', 'welcome_message'],
    ['transcriber.language must be an ISO 639-1 code', 'language'],
    ['forwardingPhoneNumber must be a valid E.164 phone number', 'transfer_number'],
    ['server.url must be a URL address', 'webhook_url'],
  ])('%s → field %s', (message, field) => {
    expect(platformBFailure('agent', answer(400, message)).field).toBe(field);
  });

  it('tells the two 400s of POST /phone-number apart by their text', () => {
    expect(platformBFailure('acquire_number', answer(400, 'Number +14155550100 is already registered'))).toMatchObject({ kind: 'number_in_use', field: 'phone_number' });
    expect(platformBFailure('acquire_number', answer(400, ['No phone number available in area code 212']))).toMatchObject({ kind: 'number_unavailable' });
    expect(platformBFailure('acquire_number', answer(400, 'number must be a valid E.164 phone number'))).toMatchObject({ kind: 'rejected', field: 'phone_number' });
  });

  it('401, 404, 429 and 5xx as for every platform', () => {
    expect(platformBFailure('agent', answer(401, 'Unauthorized')).kind).toBe('invalid_credentials');
    expect(platformBFailure('number', answer(404, 'Not Found')).kind).toBe('not_found');
    expect(platformBFailure('agent', answer(429, 'Too Many Requests', '2'))).toMatchObject({ kind: 'transient', retryAfterMs: 2000 });
    expect(platformBFailure('agent', answer(502))).toMatchObject({ kind: 'transient', status: 502 });
  });
});
