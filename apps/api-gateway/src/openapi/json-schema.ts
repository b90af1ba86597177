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

/**
 * A closed object schema for a view interface `T`. The property map must name
 * every key of T (and only those), so adding a field to a contract view
 * without documenting it is a compile error; the `additionalProperties: false`
 * makes the e2e response validation catch any field the type does not declare.
 * Keys whose type admits `undefined` are optional, all others are required.
 */
export function viewSchema<T extends object>(
  properties: { [K in keyof Required<T>]: JsonSchema },
  options: { optional?: Array<keyof T>; description?: string; examples?: T[] } = {},
): JsonSchema {
  const optional = new Set<PropertyKey>(options.optional ?? []);
  return {
    type: 'object',
    ...(options.description ? { description: options.description } : {}),
    required: Object.keys(properties).filter((key) => !optional.has(key)),
    properties,
    additionalProperties: false,
    ...(options.examples ? { examples: options.examples } : {}),
  };
}
