/** The audit log's entry as the API returns it: one schema, its type derived (the OpenAPI component is this schema). */
import { Type, type Static } from '@sinclair/typebox';
import { AUDIT_ACTIONS, ClosedObject, DateTime, Nullable, NullableString, StringEnum } from '@voice/contracts';

export const AuditActorSchema = Type.Unsafe<
  { type: 'api_key'; key_id: string; name: string | null } | { type: 'admin_token' } | { type: 'system' }
>({
  oneOf: [
    ClosedObject(
      { type: StringEnum(['api_key'] as const), key_id: Type.String({ examples: ['key_0123456789abcdef01234567'] }), name: NullableString() },
      { description: 'An API key of the account (its name as it was given at creation).' },
    ),
    ClosedObject({ type: StringEnum(['admin_token'] as const) }, { description: 'The operator, with ADMIN_TOKEN (account creation).' }),
    ClosedObject({ type: StringEnum(['system'] as const) }, { description: 'The service itself, not asked over the API.' }),
  ],
  description: 'Who made the change.',
});
export type AuditActor = Static<typeof AuditActorSchema>;

export const AuditEventViewSchema = ClosedObject(
  {
    id: Type.String({ examples: ['aud_0123456789abcdef01234567'] }),
    action: StringEnum(AUDIT_ACTIONS),
    actor: AuditActorSchema,
    target_id: NullableString({ description: 'What was changed: the agent, key, webhook endpoint, integration (its platform) or data request.' }),
    changed_fields: Nullable(
      Type.Array(Type.String(), { description: 'The names of the fields an update changed (never their values); null for other actions.' }),
    ),
    request_id: NullableString({ description: 'The X-Request-Id of the request that made the change.' }),
    client_address: NullableString({ description: 'The address the request came from, as the gateway saw it.' }),
    created_at: DateTime(),
  },
  { description: 'One entry of the audit log: append-only, kept a year, never a secret or what a caller said.' },
);
export type AuditEventView = Static<typeof AuditEventViewSchema>;
