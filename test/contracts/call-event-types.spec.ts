import { describe, expect, it } from '@jest/globals';
import { CALL_EVENT_SCHEMA } from '../../libs/contracts/src/call-event-payloads.js';
import {
  ABANDONMENT_REASONS, CALL_EVENT_TYPES, CONVERSATION_ID_PATTERN, COST_CURRENCIES, SENTIMENTS, SPEAKERS, TRANSCRIPT_ANCHORS,
  type CallAbandonedData, type CallCost, type CallEndedData, type CallError, type CallEvent, type CallFailedData, type CallProgressData,
  type CallStartedData, type CallTranscriptData, type CostComponent, type FollowUpTask, type IntegrationRecord, type LatencyFigures,
  type NetworkInfo, type QualityMetrics, type Satisfaction, type TranscriptSegment,
} from '../../libs/contracts/src/call-events.js';

/**
 * The TypeScript types of call-events.ts are derived (`Static<>`) from the one definition, the TypeBox schema of
 * call-event.schema.ts. Each line below is checked twice: by the compiler against the derived type (every property
 * listed, none invented, required or optional as declared) and by jest against the JSON Schema Ajv compiles, so a
 * definition whose type and JSON say different things (an `Optional` missing, a `$ref` typed wrongly) fails here.
 */
const R = 'required' as const;
const O = 'optional' as const;
type Shape<T> = { [K in keyof T]-?: object extends Pick<T, K> ? typeof O : typeof R };
const shape = <T>(properties: Shape<T>): Record<string, string> => properties as Record<string, string>;

const TYPES: Record<string, Record<string, string>> = {
  TranscriptSegment: shape<TranscriptSegment>({ speaker: R, text: R, start_ms: R, end_ms: R }),
  FollowUpTask: shape<FollowUpTask>({ description: R, due_at: O, assignee: O }),
  IntegrationRecord: shape<IntegrationRecord>({ system: R, action: R, reference: O, details: O }),
  QualityMetrics: shape<QualityMetrics>({ mos: O, jitter_ms: O, packet_loss_pct: O, latency_ms: O }),
  NetworkInfo: shape<NetworkInfo>({ codec: O, carrier: O, region: O }),
  CallError: shape<CallError>({ code: R, message: R, occurred_at: O }),
  Satisfaction: shape<Satisfaction>({ score: O, indicators: O }),
  CostComponent: shape<CostComponent>({ component: R, amount: R }),
  CallCost: shape<CallCost>({ amount: R, currency: R, breakdown: O }),
  LatencyFigures: shape<LatencyFigures>({ component: R, p50_ms: O, p90_ms: O, p99_ms: O, average_ms: O }),
  CallStartedData: shape<CallStartedData>({ caller_number: O, start_time: R, platform_call_id: O }),
  CallProgressData: shape<CallProgressData>({ duration: O, sentiment: O, topics: O }),
  CallTranscriptData: shape<CallTranscriptData>({ segments: R, provisional: O, anchor: O }),
  CallEndedData: shape<CallEndedData>({ end_time: R, duration: O, outcome: O, language: O, intent: O, satisfaction: O, keywords: O, actions_taken: O, follow_up_tasks: O, integrations: O, quality: O, network: O, errors: O, caller_number: O, start_time: O, platform_call_id: O, end_reason: O, cost: O, latency: O, recording_url: O, summary: O, sentiment: O, topics: O }),
  CallFailedData: shape<CallFailedData>({ failure_reason: R, end_time: O, duration: O, error: O, caller_number: O, start_time: O, platform_call_id: O, end_reason: O, cost: O, latency: O, recording_url: O, summary: O, sentiment: O, topics: O }),
  CallAbandonedData: shape<CallAbandonedData>({ reason: R, end_time: O, caller_number: O, start_time: O, platform_call_id: O, end_reason: O, cost: O, latency: O, recording_url: O, summary: O, sentiment: O, topics: O }),
};
const ENVELOPE = shape<Omit<CallEvent, 'data'> & { data: unknown }>({ id: R, type: R, conversation_id: R, agent_id: R, occurred_at: R, data: R });

const fromSchema = (node: { properties?: Record<string, unknown>; required?: readonly string[] }) =>
  Object.fromEntries(Object.keys(node.properties ?? {}).map((key) => [key, (node.required ?? []).includes(key) ? R : O]));

describe('the call-event types agree with the call-event schema', () => {
  it.each(Object.entries(TYPES))('%s has the properties of its schema definition', (name, properties) => {
    expect(properties).toEqual(fromSchema(CALL_EVENT_SCHEMA.$defs[name]));
  });

  it('the envelope has the properties of the schema root', () => {
    expect(ENVELOPE).toEqual(fromSchema(CALL_EVENT_SCHEMA));
  });

  it('the value lists are the schema enums', () => {
    const defs = CALL_EVENT_SCHEMA.$defs;
    expect(CALL_EVENT_SCHEMA.properties?.type.enum).toEqual(CALL_EVENT_TYPES);
    expect(defs.TranscriptSegment.properties?.speaker.enum).toEqual(SPEAKERS);
    expect(defs.CallProgressData.properties?.sentiment.enum).toEqual(SENTIMENTS);
    expect(defs.CallAbandonedData.properties?.reason.enum).toEqual(ABANDONMENT_REASONS);
    expect(defs.CallCost.properties?.currency.enum).toEqual(COST_CURRENCIES);
    expect(defs.CallTranscriptData.properties?.anchor.enum).toEqual(TRANSCRIPT_ANCHORS);
    expect(CALL_EVENT_SCHEMA.properties?.conversation_id.pattern).toBe(CONVERSATION_ID_PATTERN.source);
  });

  it('each event type has its data definition', () => {
    const branches = CALL_EVENT_SCHEMA.allOf.map((branch) => [branch.if.properties.type.const, branch.then.properties.data.$ref]);
    expect(branches).toEqual(CALL_EVENT_TYPES.map((type) => [type, `#/$defs/${type.replace(/^call\.(\w)/, (_, c: string) => `Call${c.toUpperCase()}`)}Data`]));
  });
});
