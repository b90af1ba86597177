/** What each API key scope allows, in words; a scope the console does not know yet is shown as its name. */
const SCOPE_DESCRIPTIONS: Record<string, string> = {
  'agents:read': 'See agents and their settings',
  'agents:write': 'Create, change, pause and delete agents',
  'conversations:read': 'Read conversations, transcripts, statistics and the live stream',
  'call_events:write': 'Send call events (your own telephony)',
  'api_keys:write': 'Create, list and revoke API keys',
  'integrations:read': 'See platform integrations and the inbound delivery log',
  'integrations:write': 'Set platform credentials and replay deliveries',
  'webhooks:read': 'See outbound webhook endpoints and their deliveries',
  'webhooks:write': 'Add, change and remove webhook endpoints; resend deliveries',
  'privacy:read': "See callers' data requests and download access exports",
  'privacy:write': "Ask for a caller's data to be erased or exported",
  'audit:read': 'Read the audit log',
};

export function scopeDescription(scope: string): string {
  return SCOPE_DESCRIPTIONS[scope] ?? scope;
}
