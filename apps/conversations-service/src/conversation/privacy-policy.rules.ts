/**
 * What an agent's privacy settings let us keep of a call event: redaction of personal data in what was said and
 * written about the call, and the zero-retention mode that keeps no content at all. Applied at ingest, before an
 * event is stored, so the stored event is already redacted: a rebuild of the read model, search and every reader
 * after it only ever see the redacted text, and nothing unredacted is kept anywhere.
 */
import { PII_CATEGORIES, redactPii, type PiiCategory } from '@voice/pii';
import { DEFAULT_PII_REDACTION_CATEGORIES, type CallEvent, type FollowUpTask, type PiiRedactionCategory, type PiiRedactionSettings, type TranscriptSegment } from '@voice/contracts';

export interface PrivacySettings {
  pii_redaction: PiiRedactionSettings;
  store_content: boolean;
}

/** How many trailing digits of the caller's number the `caller_number` category keeps. */
const CALLER_DIGITS_KEPT = 2;

/** The caller's number as kept when the agent redacts it: its last 2 digits behind a fixed mask (the length is not told). */
export function maskCallerNumber(callerNumber: string): string {
  return `**${callerNumber.replace(/\D/g, '').slice(-CALLER_DIGITS_KEPT)}`;
}

const isDetected = (category: PiiRedactionCategory): category is PiiCategory => (PII_CATEGORIES as readonly string[]).includes(category);

/** The text with each span of the categories replaced by `[CATEGORY]`. */
type Redact = (text: string) => string;

function redactorOf(settings: PiiRedactionSettings): Redact | undefined {
  if (!settings.enabled) return undefined;
  const categories = settings.categories.filter(isDetected);
  return categories.length === 0 ? undefined : (text) => redactPii(text, categories);
}

const redactTask = (task: FollowUpTask, redact: Redact): FollowUpTask => ({ ...task, description: redact(task.description) });

/** The free text of an event's data (transcript, summary, topics, keywords, analysis), redacted; timing and figures kept. */
function redactData(data: Record<string, unknown>, redact: Redact): Record<string, unknown> {
  const out: Record<string, unknown> = { ...data };
  if (Array.isArray(data.segments)) out.segments = (data.segments as TranscriptSegment[]).map((s) => ({ ...s, text: redact(s.text) }));
  if (typeof data.summary === 'string') out.summary = redact(data.summary);
  for (const list of ['topics', 'keywords', 'actions_taken'] as const) {
    if (Array.isArray(data[list])) out[list] = (data[list] as string[]).map(redact);
  }
  if (Array.isArray(data.follow_up_tasks)) out.follow_up_tasks = (data.follow_up_tasks as FollowUpTask[]).map((t) => redactTask(t, redact));
  const satisfaction = data.satisfaction as { indicators?: string[] } | undefined;
  if (Array.isArray(satisfaction?.indicators)) out.satisfaction = { ...satisfaction, indicators: satisfaction.indicators.map(redact) };
  return out;
}

/** Zero retention: the transcript's segments, the summary and the recording URL are not kept; metadata and analytics are. */
function withoutContent(event: CallEvent): Record<string, unknown> {
  const { summary: _summary, recording_url: _recording, ...data } = event.data as Record<string, unknown>;
  return event.type === 'call.transcript' ? { ...data, segments: [] } : data;
}

export function applyPrivacy(event: CallEvent, settings: PrivacySettings): CallEvent {
  let data = settings.store_content ? ({ ...event.data } as Record<string, unknown>) : withoutContent(event);
  const redact = redactorOf(settings.pii_redaction);
  if (redact) data = redactData(data, redact);
  if (settings.pii_redaction.enabled && settings.pii_redaction.categories.includes('caller_number') && typeof data.caller_number === 'string') {
    data.caller_number = maskCallerNumber(data.caller_number);
  }
  return { ...event, data } as CallEvent;
}

/**
 * What is kept of an event parked while its agent is not known yet: the agent's settings are not known either, so
 * every detected category is redacted (its content is kept: the agent may store it). When the agent is known the
 * event is recorded through the agent's own settings, which can only take more away.
 */
const WHILE_AGENT_UNKNOWN: PrivacySettings = { pii_redaction: { enabled: true, categories: [...DEFAULT_PII_REDACTION_CATEGORIES] }, store_content: true };

export function parkedForm(event: CallEvent): CallEvent {
  return applyPrivacy(event, WHILE_AGENT_UNKNOWN);
}
