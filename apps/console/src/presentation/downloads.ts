/** The transcript formats GET /v1/conversations/{id}/transcript serves, with the file each is saved as. */
export const TRANSCRIPT_FORMATS = [
  { format: 'json', label: 'JSON', extension: 'json' },
  { format: 'text', label: 'Text', extension: 'txt' },
  { format: 'srt', label: 'SRT', extension: 'srt' },
  { format: 'vtt', label: 'WebVTT', extension: 'vtt' },
] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number]['format'];

/** A file name any system accepts: the conversation id with anything but letters, digits, - and _ replaced. */
export function transcriptFileName(conversationId: string, format: TranscriptFormat): string {
  const extension = TRANSCRIPT_FORMATS.find((f) => f.format === format)?.extension ?? format;
  return `${conversationId.replace(/[^A-Za-z0-9_-]/g, '_')}-transcript.${extension}`;
}
