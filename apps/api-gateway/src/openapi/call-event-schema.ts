import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { JsonSchema } from './json-schema.js';

/** `timestamp` → `Timestamp`; the call-event $defs become top-level components under these names. */
const componentName = (def: string) => (def === 'e164' ? 'E164PhoneNumber' : def.charAt(0).toUpperCase() + def.slice(1));

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) =>
      key === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')
        ? [key, `#/components/schemas/${componentName(v.slice('#/$defs/'.length))}`]
        : [key, rewriteRefs(v)],
    ),
  );
}

/**
 * The call-event JSON Schema of the contracts package (the one ingestors
 * validate against) as OpenAPI components, so the HTTP documentation and the
 * JetStream contract cannot say different things. Its $defs (TranscriptSegment,
 * CallError, …) are reused by the conversation views.
 */
export function callEventComponents(): Record<string, JsonSchema> {
  const contractsEntry = createRequire(import.meta.url).resolve('@voice/contracts');
  const file = join(dirname(contractsEntry), '..', 'src', 'call-event.schema.json');
  const { $schema: _dialect, $id: _id, $defs, ...root } = JSON.parse(readFileSync(file, 'utf8')) as JsonSchema & { $defs: Record<string, JsonSchema> };
  const components: Record<string, JsonSchema> = { CallEvent: rewriteRefs(root) as JsonSchema };
  for (const [name, schema] of Object.entries($defs)) components[componentName(name)] = rewriteRefs(schema) as JsonSchema;
  return components;
}
