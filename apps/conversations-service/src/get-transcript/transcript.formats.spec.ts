import { describe, expect, it } from '@jest/globals';
import { cueTime, singleLine, toSrt, toText, toVtt } from './transcript.formats.js';

const segments = [
  { speaker: 'agent' as const, text: 'Hello.', start_ms: 0, end_ms: 999 },
  { speaker: 'caller' as const, text: 'Line one\n\nline two', start_ms: 3_599_999, end_ms: 3_600_000 },
  { speaker: 'agent' as const, text: 'A --> B', start_ms: 90_061_001, end_ms: 90_062_002 },
];

/** A caller-controlled text that tries to forge a second cue. */
const INJECTION = 'x\n2\n00:00:05,000 --> 00:00:06,000\nInjected cue';
const VTT_INJECTION = 'x\n\n00:00:05.000 --> 00:00:06.000\nInjected cue';

/** Cue blocks of an SRT/VTT document: what a player sees. */
const blocks = (doc: string) => doc.trimEnd().split(/\n\n+/);
const timingLines = (doc: string) => doc.split('\n').filter((line) => line.includes('-->'));

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

  it('srt: numbered cues, each text on one line, arrows defused', () => {
    expect(toSrt(segments)).toBe(
      '1\n00:00:00,000 --> 00:00:00,999\nAgent: Hello.\n\n' +
      '2\n00:59:59,999 --> 01:00:00,000\nCaller: Line one line two\n\n' +
      '3\n25:01:01,001 --> 25:01:02,002\nAgent: A -> B\n',
    );
  });

  it('vtt: WEBVTT header, dotted milliseconds, cue text on one line and escaped', () => {
    expect(toVtt(segments)).toBe(
      'WEBVTT\n\n00:00:00.000 --> 00:00:00.999\nAgent: Hello.\n\n' +
      '00:59:59.999 --> 01:00:00.000\nCaller: Line one line two\n\n' +
      '25:01:01.001 --> 25:01:02.002\nAgent: A --&gt; B\n',
    );
    expect(toVtt([{ speaker: 'caller', text: '<b>R&D</b> -->', start_ms: 0, end_ms: 1 }])).toBe(
      'WEBVTT\n\n00:00:00.000 --> 00:00:00.001\nCaller: &lt;b>R&amp;D&lt;/b> --&gt;\n',
    );
  });

  describe('segment text cannot forge a cue', () => {
    const forged = [{ speaker: 'caller' as const, text: INJECTION, start_ms: 1000, end_ms: 2000 }];

    it('srt: one cue, one timing line, the text kept on the cue line', () => {
      const doc = toSrt(forged);
      expect(doc).toBe('1\n00:00:01,000 --> 00:00:02,000\nCaller: x 2 00:00:05,000 -> 00:00:06,000 Injected cue\n');
      expect(blocks(doc)).toHaveLength(1);
      expect(timingLines(doc)).toEqual(['00:00:01,000 --> 00:00:02,000']);
    });

    it('vtt: one cue, one timing line', () => {
      const doc = toVtt([{ ...forged[0], text: VTT_INJECTION }]);
      expect(doc).toBe('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nCaller: x 00:00:05.000 --&gt; 00:00:06.000 Injected cue\n');
      expect(blocks(doc)).toHaveLength(2); // header + one cue
      expect(timingLines(doc)).toEqual(['00:00:01.000 --> 00:00:02.000']);
    });

    it('srt: longer arrows cannot reassemble into "-->"', () => {
      expect(toSrt([{ speaker: 'agent', text: 'a ---> b ----> c -- > d', start_ms: 0, end_ms: 1 }])).toContain('Agent: a -> b -> c -- > d\n');
    });
  });

  describe('every line terminator collapses to one space', () => {
    it.each([
      ['LF', 'a\nb'],
      ['CR', 'a\rb'],
      ['CRLF', 'a\r\nb'],
      ['NEL U+0085', 'a\u0085b'],
      ['LINE SEPARATOR U+2028', 'a\u2028b'],
      ['PARAGRAPH SEPARATOR U+2029', 'a\u2029b'],
      ['surrounding whitespace and repeated breaks', 'a \t\r\n\r\n\u2028 \u0085 b'],
    ])('%s', (_name, text) => {
      expect(singleLine(text)).toBe('a b');
      const seg = [{ speaker: 'agent' as const, text, start_ms: 0, end_ms: 1000 }];
      expect(toText(seg)).toBe('Agent: a b\n');
      expect(toSrt(seg)).toBe('1\n00:00:00,000 --> 00:00:01,000\nAgent: a b\n');
      expect(toVtt(seg)).toBe('WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nAgent: a b\n');
    });

    it('text: a lone CR no longer splits a segment over two lines', () => {
      const doc = toText([
        { speaker: 'agent', text: 'first\rstill first', start_ms: 0, end_ms: 1 },
        { speaker: 'caller', text: '\u2029second\u0085', start_ms: 1, end_ms: 2 },
      ]);
      expect(doc).toBe('Agent: first still first\nCaller: second\n');
      expect(doc.split(/\r\n|[\r\n\u0085\u2028\u2029]/).filter(Boolean)).toHaveLength(2);
    });

    it('keeps other whitespace inside a line as it is', () => {
      expect(singleLine('  a  b\tc  ')).toBe('a  b\tc');
    });
  });

  describe('zero-length segments', () => {
    const zero = [{ speaker: 'agent' as const, text: 'Hm.', start_ms: 5000, end_ms: 5000 }];

    it('srt and vtt cues end 1 ms after they start', () => {
      expect(toSrt(zero)).toBe('1\n00:00:05,000 --> 00:00:05,001\nAgent: Hm.\n');
      expect(toVtt(zero)).toBe('WEBVTT\n\n00:00:05.000 --> 00:00:05.001\nAgent: Hm.\n');
    });

    it('carries over a second and an hour boundary', () => {
      expect(toVtt([{ speaker: 'caller', text: 'x', start_ms: 3_599_999, end_ms: 3_599_999 }])).toContain('00:59:59.999 --> 01:00:00.000\n');
    });

    it('leaves the segment itself unchanged', () => {
      toSrt(zero);
      toVtt(zero);
      expect(zero[0]).toEqual({ speaker: 'agent', text: 'Hm.', start_ms: 5000, end_ms: 5000 });
    });
  });
});
