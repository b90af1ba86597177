/** POST /v1/accounts' answer: one schema, its type derived (the OpenAPI component is this schema). */
import { Type, type Static } from '@sinclair/typebox';
import { ClosedObject, DateTime, StringEnum, VOICE_PLATFORMS } from '@voice/contracts';
import { API_KEY_SECRET_PATTERN } from '../auth/api-key.views.js';

export const CreatedAccountSchema = ClosedObject(
  {
    id: Type.String({ examples: ['acct_0123456789abcdef01234567'] }),
    name: Type.String(),
    plan: Type.String(),
    agent_limit: Type.Integer({ minimum: 0 }),
    // Typed string[]: the store reads them back from a text[] column; the schema lists the platforms.
    voice_platforms: Type.Unsafe<string[]>(Type.Array(StringEnum(VOICE_PLATFORMS))),
    api_key: Type.String({ pattern: API_KEY_SECRET_PATTERN, description: 'An all-scopes key of the new account: vk_ and 40 letters or digits. Shown only in this response.' }),
    created_at: DateTime(),
  },
  { description: 'The new account and its first key.' },
);
export type CreatedAccount = Static<typeof CreatedAccountSchema>;
