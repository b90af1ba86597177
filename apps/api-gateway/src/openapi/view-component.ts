import { Kind, type Static, type TSchema } from '@sinclair/typebox';
import { ref, type JsonSchema } from './json-schema.js';

/**
 * The document's component for a view schema from the contracts: the same schema as plain JSON Schema. Schemas that
 * are components of their own (`named`) become `$ref`s wherever another view embeds them; TypeBox's symbol keys are
 * left out; the keywords of TypeBox-built nodes are written in the document's order (type first, the object's
 * required, properties and additionalProperties last), which TypeBox, placing options first, would reverse. A view
 * embedded in full (not a component of its own) shows the examples `embeddedExamples` gives it, last like a component's.
 */
export function viewComponent<S extends TSchema>(
  schema: S,
  named: ReadonlyMap<TSchema, string>,
  examples?: Array<Static<S>>,
  embeddedExamples: ReadonlyMap<TSchema, unknown[]> = new Map(),
): JsonSchema {
  const component = toJsonSchema(schema, { named, embeddedExamples }, true) as JsonSchema;
  return examples ? { ...component, examples } : component;
}

/** An embedded view and its examples, for viewComponent's embeddedExamples. */
export const embeddedExample = <S extends TSchema>(schema: S, examples: Array<Static<S>>): [TSchema, unknown[]] => [schema, examples];

interface Conversion {
  named: ReadonlyMap<TSchema, string>;
  embeddedExamples: ReadonlyMap<TSchema, unknown[]>;
}

const KEYWORD_RANK: Record<string, number> = { type: 0, items: 1, required: 3, properties: 4, additionalProperties: 5 };
const rank = (key: string): number => KEYWORD_RANK[key] ?? 2;

function toJsonSchema(node: unknown, conversion: Conversion, root = false): unknown {
  if (Array.isArray(node)) return node.map((item) => toJsonSchema(item, conversion));
  if (node === null || typeof node !== 'object') return node;
  const name = conversion.named.get(node as TSchema);
  if (name && !root) return ref(name);
  const builtByTypeBox = Kind in node && (node as TSchema)[Kind] !== 'Unsafe';
  const keys = Object.keys(node);
  if (builtByTypeBox) keys.sort((a, b) => rank(a) - rank(b));
  const converted = Object.fromEntries(keys.map((key) => [key, toJsonSchema((node as Record<string, unknown>)[key], conversion)]));
  const examples = root ? undefined : conversion.embeddedExamples.get(node as TSchema);
  return examples ? { ...converted, examples } : converted;
}
