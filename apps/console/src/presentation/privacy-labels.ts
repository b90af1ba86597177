/** The Privacy page's audit log and data requests, in words. */
import type { DataRequestLike } from '../rules/privacy';

/** An audit action in words: agent.privacy_settings_changed → "Agent privacy settings changed". */
export function actionLabel(action: string): string {
  const words = action.replace(/[._]/g, ' ').replace(/\bapi key\b/, 'API key');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

type Actor = { type: 'api_key'; key_id: string; name: string | null } | { type: 'admin_token' } | { type: 'system' };

/** Who made a change, as a person reads it. */
export function actorLabel(actor: Actor): string {
  if (actor.type === 'api_key') return actor.name ? `Key “${actor.name}” (${actor.key_id})` : `Key ${actor.key_id}`;
  return actor.type === 'admin_token' ? 'Administrator (admin token)' : 'The service itself';
}

/** How far a request is, in words: "12 of 40 conversations erased". */
export function progressLabel(request: DataRequestLike): string {
  const verb = request.type === 'erasure' ? 'erased' : 'exported';
  if (request.status === 'pending') return 'Waiting to start';
  const noun = request.conversations_found === 1 ? 'conversation' : 'conversations';
  return `${request.conversations_done} of ${request.conversations_found} ${noun} ${verb}`;
}
