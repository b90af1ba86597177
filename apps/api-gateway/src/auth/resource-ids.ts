import { randomBytes } from 'node:crypto';

/** Readable, typed ids in the style of the agents' `agt_…`: the prefix tells a support engineer what an id is. */
export const newAccountId = () => `acct_${randomBytes(12).toString('hex')}`;
export const newApiKeyId = () => `key_${randomBytes(12).toString('hex')}`;

export function isApiKeyId(value: string): boolean {
  return /^key_[0-9a-f]{24}$/.test(value);
}
