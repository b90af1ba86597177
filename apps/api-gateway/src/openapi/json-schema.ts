/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) kept loose on purpose: any keyword may appear. */
export type JsonSchema = { [keyword: string]: unknown };

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const nullable = (schema: JsonSchema): JsonSchema => ({ oneOf: [schema, { type: 'null' }] });
export const string = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
export const nullableString = (extra: JsonSchema = {}): JsonSchema => ({ type: ['string', 'null'], ...extra });
export const integer = (extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', ...extra });
export const boolean: JsonSchema = { type: 'boolean' };
export const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
export const arrayOf = (items: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({ type: 'array', items, ...extra });
export const enumOf = (values: readonly string[], extra: JsonSchema = {}): JsonSchema => ({ type: 'string', enum: [...values], ...extra });

