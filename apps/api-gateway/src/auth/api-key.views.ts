/** API keys as the API returns them: one schema per view, its type derived (the OpenAPI components are these schemas). */
import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject, DateTime, Nullable, NullableString, StringEnum } from '@voice/contracts';
import { SCOPES } from './scopes.js';

const keyId = Type.String({ examples: ['key_0123456789abcdef01234567'] });
const scopes = Type.Array(StringEnum(SCOPES), { minItems: 1, uniqueItems: true });
/** vk_ and 40 letters or digits (generateApiKey). */
export const API_KEY_SECRET_PATTERN = '^vk_[A-Za-z0-9]{40}$';

export const ApiKeyViewSchema = ClosedObject(
  {
    id: keyId,
    name: NullableString(),
    prefix: Type.String({ description: 'The first characters of the key, to recognise it.' }),
    scopes,
    created_at: DateTime(),
    revoked_at: Nullable(DateTime()),
    last_used_at: Nullable(DateTime()),
  },
  { description: 'An API key as listed: never its secret.' },
);
export type ApiKeyView = Static<typeof ApiKeyViewSchema>;

export const CreatedApiKeySchema = ClosedObject(
  {
    id: keyId,
    name: NullableString(),
    api_key: Type.String({ pattern: API_KEY_SECRET_PATTERN, description: 'The secret: vk_ and 40 letters or digits. Shown only in this response.' }),
    prefix: Type.String(),
    scopes,
    created_at: DateTime(),
  },
  { description: 'The new key, with its secret (shown once).' },
);
export type CreatedApiKey = Static<typeof CreatedApiKeySchema>;
