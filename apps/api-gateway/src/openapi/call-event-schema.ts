import { CALL_EVENT_SCHEMA } from '@voice/contracts';
import { CALL_COST_EXAMPLE, LATENCY_EXAMPLE } from './call-details-examples.js';
import {
  CALL_ABANDONED_DATA_EXAMPLE,
  CALL_ENDED_DATA_EXAMPLE,
  CALL_ERROR_EXAMPLE,
  CALL_FAILED_DATA_EXAMPLE,
  CALL_PROGRESS_DATA_EXAMPLE,
  CALL_STARTED_DATA_EXAMPLE,
  CALL_TRANSCRIPT_DATA_EXAMPLE,
  FOLLOW_UP_TASK_EXAMPLE,
  INTEGRATION_EXAMPLE,
  NETWORK_EXAMPLE,
  QUALITY_EXAMPLE,
  REQUEST_EXAMPLES,
  SATISFACTION_EXAMPLE,
  TRANSCRIPT_SEGMENTS_EXAMPLE,
} from './examples.js';
import type { JsonSchema } from './json-schema.js';

/** `timestamp` → `Timestamp`; the call-event $defs become top-level components under these names. */
export const componentName = (def: string) => (def === 'e164' ? 'E164PhoneNumber' : def.charAt(0).toUpperCase() + def.slice(1));

/**
 * Examples for the components the contract's schema defines (the schema file
 * itself is shared with ingestors and carries none). Keyed by component name;
 * a component without an entry fails the document's tests.
 */
const CALL_EVENT_EXAMPLES: Record<string, unknown[]> = {
  CallEvent: Object.values(REQUEST_EXAMPLES.CallEvent).map((example) => example.value),
  Timestamp: ['2025-01-31T15:00:00Z', '2025-01-31T10:00:00.250-05:00'],
  E164PhoneNumber: ['+14155550123'],
  StorableText: ['Caller booked a cleaning for Tuesday.'],
  StorableJson: [{ ticket: 'ZD-1042', priority: 'normal', tags: ['booking'] }],
  TranscriptSegment: [TRANSCRIPT_SEGMENTS_EXAMPLE[0]],
  CallError: [CALL_ERROR_EXAMPLE],
  Satisfaction: [SATISFACTION_EXAMPLE],
  FollowUpTask: [FOLLOW_UP_TASK_EXAMPLE],
  IntegrationRecord: [INTEGRATION_EXAMPLE],
  QualityMetrics: [QUALITY_EXAMPLE],
  NetworkInfo: [NETWORK_EXAMPLE],
  CostComponent: [CALL_COST_EXAMPLE.breakdown[0]],
  CallCost: [CALL_COST_EXAMPLE],
  LatencyFigures: [LATENCY_EXAMPLE[0]],
  CallStartedData: [CALL_STARTED_DATA_EXAMPLE],
  CallProgressData: [CALL_PROGRESS_DATA_EXAMPLE],
  CallTranscriptData: [CALL_TRANSCRIPT_DATA_EXAMPLE],
  CallEndedData: [CALL_ENDED_DATA_EXAMPLE],
  CallFailedData: [CALL_FAILED_DATA_EXAMPLE],
  CallAbandonedData: [CALL_ABANDONED_DATA_EXAMPLE],
};

const withExamples = (name: string, schema: JsonSchema): JsonSchema =>
  CALL_EVENT_EXAMPLES[name] ? { ...schema, examples: CALL_EVENT_EXAMPLES[name] } : schema;

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
 * The call-event JSON Schema of the contracts package (the one definition the
 * service compiles into its validator and ingestors validate against) as OpenAPI
 * components, so the HTTP documentation and the JetStream contract cannot say
 * different things. Its $defs (TranscriptSegment,
 * CallError, …) are reused by the conversation views.
 */
export function callEventComponents(): Record<string, JsonSchema> {
  const { $schema: _dialect, $id: _id, $defs, ...root } = structuredClone(CALL_EVENT_SCHEMA) as unknown as JsonSchema & { $defs: Record<string, JsonSchema> };
  const components: Record<string, JsonSchema> = { CallEvent: withExamples('CallEvent', rewriteRefs(root) as JsonSchema) };
  for (const [def, schema] of Object.entries($defs)) components[componentName(def)] = withExamples(componentName(def), rewriteRefs(schema) as JsonSchema);
  return components;
}
