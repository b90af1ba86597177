import { Type, type SchemaOptions, type Static, type StringOptions, type TSchema } from '@sinclair/typebox';

/**
 * Building blocks for the response payloads' schemas. Each payload is one TypeBox schema: its TypeScript type is
 * `Static<typeof Schema>` and the gateway's OpenAPI document shows the same schema. They write the shapes the
 * document uses (string enums, `oneOf [schema, null]`, `type: [string, null]`), which TypeBox's own Union and
 * Literal would spell as `anyOf` of `const`s.
 */

/** One of the strings, as `{ type: 'string', enum }`; typed as their union. */
export const StringEnum = <const T extends readonly string[]>(values: T, options: SchemaOptions = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** The schema or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T> | null>({ oneOf: [schema, { type: 'null' }] });

/** A string or null, as one `type: ['string', 'null']`. */
export const NullableString = (options: StringOptions = {}) => Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });

/** An ISO 8601 instant, as the views write them (`toISOString()`). */
export const DateTime = (options: StringOptions = {}) => Type.String({ format: 'date-time', ...options });

/** An object whose keys are exactly these: a view never adds a key its schema does not name. */
export const ClosedObject = <T extends Record<string, TSchema>>(properties: T, options: SchemaOptions = {}) =>
  Type.Object(properties, { ...options, additionalProperties: false });
