/**
 * Small JSON Schema (2020-12, OpenAPI 3.1's dialect) builders for the platforms' webhook bodies, which the
 * gateway's OpenAPI document shows: open objects, since platforms add fields.
 */
export type JsonSchema = { [keyword: string]: unknown };

export const open = (properties: Record<string, JsonSchema>, required: string[] = [], description?: string): JsonSchema => ({
  type: 'object',
  ...(description ? { description } : {}),
  required,
  properties,
});
export const string = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
export const integer = (extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', ...extra });
export const number: JsonSchema = { type: 'number' };
export const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
export const arrayOf = (items: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({ type: 'array', items, ...extra });
export const enumOf = (values: readonly string[], extra: JsonSchema = {}): JsonSchema => ({ type: 'string', enum: [...values], ...extra });
export const unixMs = integer({ description: 'Unix time, milliseconds.' });
