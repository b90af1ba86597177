import { Kind, type Static, type TSchema } from '@sinclair/typebox';
import { ref, type JsonSchema } from './json-schema.js';

/**
 * The document's component for a view schema from the contracts: the same schema as plain JSON Schema. Schemas that
 * are components of their own (`named`) become `$ref`s wherever another view embeds them; TypeBox's symbol keys are
 * left out; the keywords of TypeBox-built nodes are written in the document's order (type first, the object's
 * required, properties and additionalProperties last), which TypeBox, placing options first, would reverse.
 */
export function viewComponent<S extends TSchema>(schema: S, named: ReadonlyMap<TSchema, string>, examples?: Array<Static<S>>): JsonSchema {
  const component = toJsonSchema(schema, named, true) as JsonSchema;
  return examples ? { ...component, examples } : component;
}

const KEYWORD_RANK: Record<string, number> = { type: 0, items: 1, required: 3, properties: 4, additionalProperties: 5 };
const rank = (key: string): number => KEYWORD_RANK[key] ?? 2;

function toJsonSchema(node: unknown, named: ReadonlyMap<TSchema, string>, root = false): unknown {
  if (Array.isArray(node)) return node.map((item) => toJsonSchema(item, named));
  if (node === null || typeof node !== 'object') return node;
  const name = named.get(node as TSchema);
  if (name && !root) return ref(name);
  const builtByTypeBox = Kind in node && (node as TSchema)[Kind] !== 'Unsafe';
  const keys = Object.keys(node);
  if (builtByTypeBox) keys.sort((a, b) => rank(a) - rank(b));
  return Object.fromEntries(keys.map((key) => [key, toJsonSchema((node as Record<string, unknown>)[key], named)]));
}
