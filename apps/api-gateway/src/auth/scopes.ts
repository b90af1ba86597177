export const SCOPES = [
  'agents:read', 'agents:write', 'conversations:read', 'call_events:write', 'api_keys:write', 'integrations:read', 'integrations:write', 'webhooks:read', 'webhooks:write', 'privacy:read', 'privacy:write', 'audit:read',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}
