import { describe, expect, it } from '@jest/globals';
import { transcriptFileName } from './downloads';
import { formatDuration, formatMoney, formatShortTime, formatTime, histogramLabel, humanize, mergeTopics, platformName, topicKey, topicLabel, topicList } from './format';
import { qualityValue, segmentAt } from './call-details';
import { highlightParts } from './highlight';
import { actionLabel, actorLabel, progressLabel } from './privacy-labels';

describe('highlightParts', () => {
  it('marks every case-insensitive occurrence and keeps the original text', () => {
    expect(highlightParts('Refund? A refund please', 'REFUND')).toEqual([
      { text: 'Refund', match: true },
      { text: '? A ', match: false },
      { text: 'refund', match: true },
      { text: ' please', match: false },
    ]);
  });
  it('marks nothing without a term', () => {
    expect(highlightParts('hello', undefined)).toEqual([{ text: 'hello', match: false }]);
    expect(highlightParts('hello', ' ')).toEqual([{ text: 'hello', match: false }]);
  });
});

describe('formatting', () => {
  it('durations, money, times and words', () => {
    expect(formatDuration(42)).toBe('0:42');
    expect(formatDuration(3727)).toBe('1:02:07');
    expect(formatDuration(null)).toBe('—');
    expect(formatMoney(0.1842)).toBe('0.1842 USD');
    expect(formatMoney(39.4213)).toBe('39.42 USD');
    expect(formatTime('2026-11-26T08:29:09.123Z')).toBe('2026-11-26 08:29:09 UTC');
    expect(humanize('appointment_booked')).toBe('Appointment booked');
  });
  it('names a download after the conversation, safely', () => {
    expect(transcriptFileName('call_01HZX3', 'vtt')).toBe('call_01HZX3-transcript.vtt');
    expect(transcriptFileName('a/b:c', 'text')).toBe('a_b_c-transcript.txt');
  });
  it('labels histogram buckets', () => {
    expect(histogramLabel(0, 30)).toBe('0 s–30 s');
    expect(histogramLabel(60, 120)).toBe('1 min–2 min');
    expect(histogramLabel(1800, null)).toBe('30 min+');
  });
});

describe('labels for people', () => {
  it('names platforms as products are named', () => {
    expect(platformName('platform_a')).toBe('Platform A');
    expect(platformName('platform_b')).toBe('Platform B');
    expect(platformName(null)).toBe('—');
  });
  it('folds the forms one topic comes in (case, separators, a plural) into one, shown as words', () => {
    expect(topicKey('Appointments')).toBe('appointment');
    expect(topicKey('appointment')).toBe('appointment');
    expect(topicKey('technical_support')).toBe('technical support');
    expect(topicKey('Billing Inquiries')).toBe('billing inquiry');
    expect(topicKey('address')).toBe('address');
    expect(topicKey('status')).toBe('status');
    expect(topicKey('insurance')).toBe('insurance');
    expect(topicLabel('technical_support')).toBe('Technical support');
    expect(topicList(['Appointment', 'appointments', 'billing'])).toBe('Appointment, Billing');
  });
  it('counts merged topics together, largest first', () => {
    expect(mergeTopics([{ topic: 'appointment', count: 3 }, { topic: 'billing', count: 4 }, { topic: 'appointments', count: 2 }])).toEqual([
      { topic: 'appointment', count: 5 },
      { topic: 'billing', count: 4 },
    ]);
  });
  it('shows quality measures with their unit, and table times to the minute', () => {
    expect(qualityValue('jitter_ms', 4)).toBe('4 ms');
    expect(qualityValue('packet_loss_pct', 0.2)).toBe('0.2 %');
    expect(qualityValue('mos', 4.1)).toBe('4.1');
    expect(formatShortTime('2026-11-27T09:14:59.000Z')).toBe('2026-11-27 09:14');
  });
});

describe('segmentAt', () => {
  const segments = [{ start_ms: 0, end_ms: 2000 }, { start_ms: 2500, end_ms: 6000 }, { start_ms: 9000, end_ms: 12000 }];
  it('is the line being spoken at a point of the recording, the previous one through a pause', () => {
    expect(segmentAt(segments, 0)).toBe(0);
    expect(segmentAt(segments, 2600)).toBe(1);
    expect(segmentAt(segments, 7000)).toBe(1);
    expect(segmentAt(segments, 60_000)).toBe(2);
    expect(segmentAt([{ start_ms: 500 }], 100)).toBeUndefined();
  });
});

describe('the Privacy page in words', () => {
  it('says actions and actors in words', () => {
    expect(actionLabel('agent.privacy_settings_changed')).toBe('Agent privacy settings changed');
    expect(actionLabel('api_key.created')).toBe('API key created');
    expect(actorLabel({ type: 'api_key', key_id: 'key_1', name: 'ops' })).toBe('Key “ops” (key_1)');
    expect(actorLabel({ type: 'api_key', key_id: 'key_1', name: null })).toBe('Key key_1');
    expect(actorLabel({ type: 'admin_token' })).toBe('Administrator (admin token)');
  });

  it('says a data request’s progress in words', () => {
    const request = { type: 'access', status: 'completed', conversations_found: 3, conversations_done: 3, download_expires_at: '2026-11-28T10:00:00Z' };
    expect(progressLabel(request)).toBe('3 of 3 conversations exported');
    expect(progressLabel({ ...request, type: 'erasure', status: 'running', conversations_found: 1, conversations_done: 0 })).toBe('0 of 1 conversation erased');
    expect(progressLabel({ ...request, status: 'pending' })).toBe('Waiting to start');
  });
});
