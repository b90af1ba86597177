/** How platform_a's `disconnection_reason` values map onto our conversation status (platforms.md's table). */
import type { EndReasonTable } from '../webhooks/end-reasons.js';

export const PLATFORM_A_END_REASONS: EndReasonTable = {
  abandoned: { dial_busy: 'busy', dial_no_answer: 'no_answer' },
  callerHangup: 'user_hangup',
  failed: { exact: ['dial_failed', 'concurrency_limit_reached'], prefixes: ['error_'] },
  completed: ['agent_hangup', 'call_transfer', 'voicemail_reached', 'inactivity', 'max_duration_reached'],
  transferred: ['call_transfer'],
  voicemail: ['voicemail_reached'],
};
