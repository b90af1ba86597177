/** GET /health's answer: one schema, its type derived (the OpenAPI component is this schema). */
import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject, Nullable, StringEnum } from '@voice/contracts';

const CHECK_RESULTS = ['ok', 'unavailable'] as const;
const checkResult = StringEnum(CHECK_RESULTS);

const ReadReplicaSchema = ClosedObject(
  {
    state: StringEnum(['ok', 'lagging', 'unreachable'] as const, { description: 'ok: it serves the reads; lagging or unreachable: the primary serves them.' }),
    lag_ms: Nullable(Type.Integer({ minimum: 0, description: 'How old the data it serves is, in ms (0 when it has replayed everything).' })),
    lag_bytes: Nullable(Type.Integer({ minimum: 0, description: 'WAL it has still to replay.' })),
    max_lag_ms: Type.Integer({ minimum: 0, description: 'DATABASE_READ_MAX_LAG_MS: further behind, it serves nothing.' }),
  },
  { description: "A service's read replica (DATABASE_READ_URL)." },
);

export const HealthSchema = ClosedObject({
  status: StringEnum(CHECK_RESULTS, { description: 'ok (200) when every check is ok, else unavailable (503).' }),
  checks: ClosedObject({ database: checkResult, nats: checkResult, agents_service: checkResult, conversations_service: checkResult, notifications_service: checkResult }),
  read_replicas: Type.Optional(
    ClosedObject(
      { agents_service: Type.Optional(ReadReplicaSchema), conversations_service: Type.Optional(ReadReplicaSchema) },
      { description: 'Present when a service has a read replica. A replica that lags or is down does not make the service unavailable: its reads go to the primary.' },
    ),
  ),
});
export type Health = Static<typeof HealthSchema>;
