/** POST /v1/call-events' answer: one schema, its type derived (the OpenAPI component is this schema). */
import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject } from '@voice/contracts';

export const CallEventsAcceptedSchema = ClosedObject({
  accepted: Type.Integer({ minimum: 1 }),
  event_ids: Type.Array(Type.String(), { description: 'The ids of the accepted events, in request order.' }),
});
export type CallEventsAccepted = Static<typeof CallEventsAcceptedSchema>;
