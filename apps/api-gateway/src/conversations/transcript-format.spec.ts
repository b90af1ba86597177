import { describe, expect, it } from '@jest/globals';
import { transcriptFormat } from './transcript-format.js';

const chosen = (format: string) => ({ ok: true, format });
const NOT_ACCEPTABLE = { ok: false, supported: ['application/json', 'text/plain', 'application/x-subrip', 'text/vtt'] };

describe('transcriptFormat', () => {
  it('lets ?format= win over Accept and passes unknown values through for the service to refuse', () => {
    expect(transcriptFormat('srt', 'text/vtt')).toEqual(chosen('srt'));
    expect(transcriptFormat('pdf', undefined)).toEqual(chosen('pdf'));
    expect(transcriptFormat('', undefined)).toEqual(chosen(''));
    expect(transcriptFormat(['srt', 'vtt'], undefined)).toEqual(chosen('srt,vtt'));
  });

  it('?format= is case-insensitive', () => {
    expect(transcriptFormat('SRT', undefined)).toEqual(chosen('srt'));
    expect(transcriptFormat('Vtt', 'application/json')).toEqual(chosen('vtt'));
    expect(transcriptFormat('PDF', undefined)).toEqual(chosen('pdf'));
  });

  it('?format= wins even over an Accept that admits none of the formats', () => {
    expect(transcriptFormat('text', 'image/png')).toEqual(chosen('text'));
    expect(transcriptFormat('json', 'application/json;q=0')).toEqual(chosen('json'));
  });

  it.each([
    ['application/json', 'json'],
    ['text/plain', 'text'],
    ['application/x-subrip', 'srt'],
    ['text/vtt', 'vtt'],
    ['TEXT/VTT; charset=utf-8', 'vtt'],
    ['*/*', 'json'],
    ['application/*', 'json'],
    ['text/*', 'text'],
    ['image/png, text/plain;q=0.2', 'text'],
    ['text/html, application/xhtml+xml, application/xml;q=0.9, */*;q=0.8', 'json'],
  ])('Accept %s → %s', (accept, format) => {
    expect(transcriptFormat(undefined, accept)).toEqual(chosen(format));
  });

  it('defaults to json without Accept, or with one holding no readable media range', () => {
    expect(transcriptFormat(undefined, undefined)).toEqual(chosen('json'));
    expect(transcriptFormat(undefined, '')).toEqual(chosen('json'));
    expect(transcriptFormat(undefined, ' , ')).toEqual(chosen('json'));
    expect(transcriptFormat(undefined, 'garbage')).toEqual(chosen('json'));
  });

  it('honours q-values and skips q=0', () => {
    expect(transcriptFormat(undefined, 'application/json;q=0.5, text/vtt')).toEqual(chosen('vtt'));
    expect(transcriptFormat(undefined, 'text/vtt;q=0, application/x-subrip;q=0.1')).toEqual(chosen('srt'));
    expect(transcriptFormat(undefined, 'text/vtt;q=0.9, application/x-subrip;q=0.95')).toEqual(chosen('srt'));
  });

  it('q=0 on a specific type beats a wildcard that would admit it', () => {
    expect(transcriptFormat(undefined, 'application/json;q=0, */*')).toEqual(chosen('text'));
    expect(transcriptFormat(undefined, 'application/json;q=0, text/plain;q=0, */*')).toEqual(chosen('srt'));
    expect(transcriptFormat(undefined, 'text/plain;q=0, text/*')).toEqual(chosen('vtt'));
    expect(transcriptFormat(undefined, 'application/*;q=0, */*;q=0.1')).toEqual(chosen('text'));
  });

  it('breaks ties in the order json, text, srt, vtt, whatever the order in Accept', () => {
    expect(transcriptFormat(undefined, 'text/vtt, application/x-subrip')).toEqual(chosen('srt'));
    expect(transcriptFormat(undefined, 'text/vtt, text/plain, application/json')).toEqual(chosen('json'));
    expect(transcriptFormat(undefined, 'text/vtt;q=0.5, application/x-subrip;q=0.5')).toEqual(chosen('srt'));
  });

  it('ignores ranges with an invalid q or shape, and commas inside quoted parameters', () => {
    expect(transcriptFormat(undefined, 'application/json;q=2, text/vtt')).toEqual(chosen('vtt'));
    expect(transcriptFormat(undefined, 'application/json;q=abc, text/vtt;q=0.5')).toEqual(chosen('vtt'));
    expect(transcriptFormat(undefined, '*/json, text/vtt')).toEqual(chosen('vtt'));
    expect(transcriptFormat(undefined, 'text/plain; foo="a, application/json", text/vtt;q=0.5')).toEqual(chosen('text'));
  });

  it.each([
    ['image/png'],
    ['application/json;q=0'],
    ['application/json;q=0, text/*;q=0, application/x-subrip;q=0'],
    ['*/*;q=0'],
    ['text/html, image/*'],
  ])('Accept %s admits none of the formats → not acceptable', (accept) => {
    expect(transcriptFormat(undefined, accept)).toEqual(NOT_ACCEPTABLE);
  });
});
