/** How platform_b's `endedReason` values map onto our conversation status (platforms.md's table). */
import type { EndReasonTable } from '../webhooks/end-reasons.js';

export const PLATFORM_B_END_REASONS: EndReasonTable = {
  abandoned: { 'customer-busy': 'busy', 'customer-did-not-answer': 'no_answer' },
  callerHangup: 'customer-ended-call',
  failed: {
    exact: ['phone-call-provider-closed-websocket', 'twilio-failed-to-connect-call'],
    prefixes: ['pipeline-error-'],
  },
  completed: [
    'assistant-ended-call', 'assistant-said-end-call-phrase', 'assistant-forwarded-call', 'silence-timed-out',
    'exceeded-max-duration', 'voicemail', 'manually-canceled',
  ],
  transferred: ['assistant-forwarded-call'],
  voicemail: ['voicemail'],
};
