import type { ErrorCode, ServiceError } from '@voice/contracts';

type Example = Omit<ServiceError, 'code'>;

/** One realistic error per code for the document; a Record over ErrorCode, so a new code cannot ship without one. */
export const ERROR_EXAMPLES: Record<ErrorCode, Example> = {
  invalid_request: { message: 'The request body must be a JSON object.' },
  invalid_json: { message: 'The request body is not valid JSON: Unexpected end of JSON input' },
  invalid_parameter: { message: 'sentiment must be one of positive, neutral, negative.', field: 'sentiment', valid_values: ['positive', 'neutral', 'negative'] },
  invalid_date_format: { message: 'start_date must be an ISO 8601 timestamp such as 2025-01-31T14:05:00Z.', field: 'start_date' },
  missing_required_field: { message: 'voice_platform is required.', field: 'voice_platform' },
  authentication_required: { message: 'Authentication required: send Authorization: Bearer <API key>.' },
  invalid_api_key: { message: 'The API key is invalid or has been revoked.' },
  invalid_signature: { message: 'The webhook signature is missing or does not match this webhook URL.' },
  stale_timestamp: { message: 'The webhook timestamp is more than 5 minutes away from our clock: check the sender’s clock, or whether this is an old delivery replayed.' },
  insufficient_permissions: { message: 'This API key lacks the agents:write scope required by POST /v1/agents.' },
  platform_not_enabled: { message: 'platform_b is not enabled for this account.', field: 'platform' },
  quota_exceeded: { message: 'The plan allows 5 agents and the account has 5.', limit: 5, current: 5 },
  not_found: { message: 'No agent agt_5f0c3b8a9d2e4f6a7b8c9d0e in this account.' },
  route_not_found: { message: 'No route matches GET /v1/nothing.' },
  transcript_not_available: { message: 'Conversation call_01HZX3 has no stored transcript.' },
  method_not_allowed: { message: 'PUT is not allowed on /v1/agents. Allowed: GET, HEAD, POST, OPTIONS.' },
  precondition_failed: { message: 'The agent is at version 4, not 3 (If-Match).', field: 'If-Match' },
  payload_too_large: { message: 'The request body exceeds 1048576 bytes (1 MiB).' },
  unsupported_media_type: { message: 'Request bodies must be JSON (Content-Type: application/json), got text/plain.' },
  not_acceptable: { message: 'None of the accepted media types can be produced.' },
  request_timeout: { message: 'The request (its headers, or all of it) did not arrive in time.' },
  integration_in_use: { message: 'The platform_a integration is used by 2 live agents of this account; delete them first.' },
  idempotency_key_in_use: { message: 'A request with this Idempotency-Key is still being handled; retry once it has finished.', field: 'Idempotency-Key' },
  idempotency_key_reused: {
    message: 'This Idempotency-Key was used for a different request (method, path or body) in the last 24 hours; use a new key for a new request.',
    field: 'Idempotency-Key',
  },
  concurrent_modification: { message: 'The agent was changed by another request at the same time; retry.' },
  duplicate_name: { message: 'An agent named Front desk already exists in this account.', field: 'name' },
  platform_not_configured: { message: 'platform_b is not configured for this account.', field: 'voice_platform' },
  invalid_platform_credentials: { message: 'platform_a refused the API key.', field: 'api_key' },
  phone_number_in_use: { message: '+14155550100 is already used by another agent.', field: 'phone_number' },
  phone_number_unavailable: { message: 'platform_b has no number available in area 415.' },
  platform_rejected: { message: "platform_a refused the agent: voice_id 'x' does not exist", field: 'voice_id' },
  unknown_agent: { message: 'Agent agt_other is not an agent of this account.', field: 'events[0].agent_id' },
  agent_not_answering: {
    message: 'Agent agt_5f0c3b8a9d2e4f6a7b8c9d0e is paused: it does not answer call call-42, which started after it was paused.',
    field: 'events[0].agent_id',
  },
  rate_limited: { message: 'Too many requests; retry later.' },
  internal_error: { message: 'An unexpected error occurred. Quote the request_id when reporting it.' },
  service_unavailable: { message: 'agents-service did not answer in time; retry shortly.' },
};
