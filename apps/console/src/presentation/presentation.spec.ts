import { describe, expect, it } from '@jest/globals';
import { transcriptFileName } from './downloads';
import { formatDuration, formatMoney, formatTime, histogramLabel, humanize } from './format';
import { highlightParts } from './highlight';

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
