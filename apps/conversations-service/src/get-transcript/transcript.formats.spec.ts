import { describe, expect, it } from '@jest/globals';
import { cueTime, toSrt, toText, toVtt } from './transcript.formats.js';

const segments = [
  { speaker: 'agent' as const, text: 'Hello.', start_ms: 0, end_ms: 999 },
  { speaker: 'caller' as const, text: 'Line one\n\nline two', start_ms: 3_599_999, end_ms: 3_600_000 },
  { speaker: 'agent' as const, text: 'A --> B', start_ms: 90_061_001, end_ms: 90_062_002 },
];

describe('transcript formats', () => {
  it('cue times: HH:MM:SS,mmm / HH:MM:SS.mmm, hours past one and past 24', () => {
    expect(cueTime(0, ',')).toBe('00:00:00,000');
    expect(cueTime(3_600_000, ',')).toBe('01:00:00,000');
    expect(cueTime(3_723_004, '.')).toBe('01:02:03.004');
    expect(cueTime(90_061_001, '.')).toBe('25:01:01.001');
  });
  it('text: one line per segment with the speaker', () => {
    expect(toText(segments)).toBe('Agent: Hello.\nCaller: Line one line two\nAgent: A --> B\n');
  });
  it('srt: numbered cues; a blank line inside a text cannot end the cue early', () => {
    expect(toSrt(segments)).toBe(
      '1\n00:00:00,000 --> 00:00:00,999\nAgent: Hello.\n\n' +
      '2\n00:59:59,999 --> 01:00:00,000\nCaller: Line one\nline two\n\n' +
      '3\n25:01:01,001 --> 25:01:02,002\nAgent: A --> B\n',
    );
  });
  it('vtt: WEBVTT header, dotted milliseconds, cue text escaped', () => {
    expect(toVtt(segments)).toBe(
      'WEBVTT\n\n00:00:00.000 --> 00:00:00.999\nAgent: Hello.\n\n' +
      '00:59:59.999 --> 01:00:00.000\nCaller: Line one\nline two\n\n' +
      '25:01:01.001 --> 25:01:02.002\nAgent: A --&gt; B\n',
    );
  });
});
