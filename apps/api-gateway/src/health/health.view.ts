/** GET /health's answer: one schema, its type derived (the OpenAPI component is this schema). */
import { type Static } from '@sinclair/typebox';
import { ClosedObject, StringEnum } from '@voice/contracts';

const CHECK_RESULTS = ['ok', 'unavailable'] as const;
const checkResult = StringEnum(CHECK_RESULTS);

export const HealthSchema = ClosedObject({
  status: StringEnum(CHECK_RESULTS, { description: 'ok (200) when every check is ok, else unavailable (503).' }),
  checks: ClosedObject({ database: checkResult, nats: checkResult, agents_service: checkResult, conversations_service: checkResult, notifications_service: checkResult }),
});
export type Health = Static<typeof HealthSchema>;
