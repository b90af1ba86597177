/**
 * What the delivery log keeps of a platform's webhook body: the body as received, but with what callers said
 * redacted per the agent's `pii_redaction` and, for an agent with `store_content` false, without its content,
 * so the log holds no more than the conversation store. Pure; the handler calls it before recording a delivery.
 *
 * The body is walked as JSON whatever the platform: every string is redacted (transcripts, messages, summaries,
 * analysis, metadata alike), except the values that identify the call (the platform's call and agent ids, phone
 * numbers, timestamps), so that a replay of the stored body still maps to the same conversation. A list of timed
 * words (`{ word, start, end }`, a number said digit by digit across items) is redacted as the text the words make.
 * Without content, free text (with a space in it), URLs (recordings) and word lists go; the ids, types, numbers and
 * single-word analytics a replay needs stay.
 */
import { DEFAULT_PII_REDACTION_CATEGORIES, isPlainObject, type AgentPrivacySettings } from '@voice/contracts';
import { findPii, PII_CATEGORIES, redactionLabel, redactPii, type PiiCategory } from '@voice/pii';

/** What stands for a string the agent does not let us store. */
export const NOT_STORED = '[NOT_STORED]';

/**
 * An agent not known (yet) has unknown settings: every detected category is redacted, content kept, as for a
 * parked call event. The agent's own settings apply when the stored body is replayed once it is linked.
 */
export const WHILE_AGENT_UNKNOWN: AgentPrivacySettings = {
  pii_redaction: { enabled: true, categories: [...DEFAULT_PII_REDACTION_CATEGORIES] },
  store_content: true,
};

/** What the platform's mapping read from the body that identifies the call: kept as it is. */
export interface CallIdentity {
  platformCallId: string | null;
  platformAgentId: string | null;
  callerNumber: string | null;
}

const E164 = /^\+[1-9]\d{6,14}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type TimedWord = { word: string } & Record<string, Json>;

const isTimedWordList = (value: Json[]): value is TimedWord[] =>
  value.length > 0 && value.every((item) => isPlainObject(item) && typeof item.word === 'string');

/** The caller's number as the conversation store keeps it with the `caller_number` category: its last 2 digits. */
const maskedNumber = (number: string) => `**${number.replace(/\D/g, '').slice(-2)}`;

interface Policy {
  redact: readonly PiiCategory[] | undefined;
  storeContent: boolean;
  maskCaller: boolean;
  identity: CallIdentity;
}

function policyOf(settings: AgentPrivacySettings, identity: CallIdentity): Policy {
  const categories = settings.pii_redaction.enabled ? PII_CATEGORIES.filter((c) => settings.pii_redaction.categories.includes(c)) : [];
  return {
    redact: categories.length > 0 ? categories : undefined,
    storeContent: settings.store_content,
    maskCaller: settings.pii_redaction.enabled && settings.pii_redaction.categories.includes('caller_number'),
    identity,
  };
}

function keptString(value: string, policy: Policy): string {
  const { identity } = policy;
  if (value === identity.platformCallId || value === identity.platformAgentId || TIMESTAMP.test(value)) return value;
  if (E164.test(value)) return policy.maskCaller && value === identity.callerNumber ? maskedNumber(value) : value;
  if (!policy.storeContent && (/\s/.test(value) || URL_LIKE.test(value))) return NOT_STORED;
  return policy.redact ? redactPii(value, policy.redact) : value;
}

/** Each word inside a detected span of the text the words make becomes that span's label; timing is kept. */
function redactedWords(words: TimedWord[], categories: readonly PiiCategory[]): TimedWord[] {
  const starts: number[] = [];
  let text = '';
  for (const { word } of words) {
    starts.push(text.length);
    text += `${word} `;
  }
  const spans = findPii(text, categories);
  if (spans.length === 0) return words;
  return words.map((item, i) => {
    const start = starts[i];
    const end = start + item.word.length;
    const span = spans.find((s) => s.start < end && s.end > start);
    return span ? { ...item, word: redactionLabel(span.category) } : item;
  });
}

function kept(value: Json, policy: Policy): Json {
  if (typeof value === 'string') return keptString(value, policy);
  if (Array.isArray(value)) {
    if (isTimedWordList(value)) {
      if (!policy.storeContent) return [];
      return (policy.redact ? redactedWords(value, policy.redact) : value).map((item) => kept(item, { ...policy, redact: undefined }));
    }
    return value.map((item) => kept(item, policy));
  }
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, kept(item, policy)]));
  return value;
}

/**
 * The bytes the delivery log stores. A body that is not JSON is redacted as text (every category: no agent can be
 * named from it). A body the agent lets us keep whole is stored byte for byte.
 */
export function storedDeliveryBody(body: Buffer, settings: AgentPrivacySettings, identity: CallIdentity): Buffer {
  const policy = policyOf(settings, identity);
  if (!policy.redact && policy.storeContent && !policy.maskCaller) return body;
  const text = body.toString('utf8');
  let json: Json;
  try {
    json = JSON.parse(text) as Json;
  } catch {
    return Buffer.from(redactPii(text, PII_CATEGORIES), 'utf8');
  }
  return Buffer.from(JSON.stringify(kept(json, policy)), 'utf8');
}
