/** OpenAPI component of the audit log. */
import type { TSchema } from '@sinclair/typebox';
import { AuditEventViewSchema, type AuditEventView } from '../audit/audit-event.view.js';
import type { JsonSchema } from './json-schema.js';
import { viewComponent } from './view-component.js';

/** The audit event names no other component. */
const NAMED = new Map<TSchema, string>();

const AUDIT_EVENT_EXAMPLES: AuditEventView[] = [
  {
    id: 'aud_5f0c3b8a9d2e4f6a7b8c9d0e',
    action: 'agent.updated',
    actor: { type: 'api_key', key_id: 'key_0123456789abcdef01234567', name: 'deploy bot' },
    target_id: 'agt_5f0c3b8a9d2e4f6a7b8c9d0e',
    changed_fields: ['pii_redaction', 'system_prompt'],
    request_id: 'req-7f3a',
    client_address: '203.0.113.7',
    created_at: '2025-03-01T10:00:00.000Z',
  },
  {
    id: 'aud_6a1d4c9b0e3f5a7b8c9d0e1f',
    action: 'api_key.created',
    actor: { type: 'admin_token' },
    target_id: 'key_0123456789abcdef01234567',
    changed_fields: null,
    request_id: 'req-1b2c',
    client_address: '198.51.100.4',
    created_at: '2025-03-01T09:00:00.000Z',
  },
];

export function auditEventComponents(): Record<string, JsonSchema> {
  return { AuditEvent: viewComponent(AuditEventViewSchema, NAMED, AUDIT_EVENT_EXAMPLES) };
}
