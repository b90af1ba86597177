import { describe, expect, it } from '@jest/globals';
import { transcriptFormat } from './transcript-format.js';

describe('transcriptFormat', () => {
  it('lets ?format= win over Accept and passes unknown values through for the service to refuse', () => {
    expect(transcriptFormat('srt', 'text/vtt')).toBe('srt');
    expect(transcriptFormat('pdf', undefined)).toBe('pdf');
    expect(transcriptFormat('', undefined)).toBe('');
  });

  it.each([
    ['application/json', 'json'],
    ['text/plain', 'text'],
    ['application/x-subrip', 'srt'],
    ['text/vtt', 'vtt'],
    ['TEXT/VTT; charset=utf-8', 'vtt'],
    ['*/*', 'json'],
    ['image/png', 'json'],
    ['text/*', 'text'],
  ])('Accept %s → %s', (accept, format) => {
    expect(transcriptFormat(undefined, accept)).toBe(format);
  });

  it('defaults to json without Accept', () => {
    expect(transcriptFormat(undefined, undefined)).toBe('json');
  });

  it('honours q-values and skips q=0', () => {
    expect(transcriptFormat(undefined, 'application/json;q=0.5, text/vtt')).toBe('vtt');
    expect(transcriptFormat(undefined, 'text/vtt;q=0, application/x-subrip;q=0.1')).toBe('srt');
    expect(transcriptFormat(undefined, 'image/png, text/plain;q=0.2')).toBe('text');
  });
});
