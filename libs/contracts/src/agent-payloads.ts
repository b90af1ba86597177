/**
 * Request payloads of the agent API (POST/PATCH /v1/agents) as class-validator
 * classes, plus the rules a decorator cannot express with a precise field path
 * (metadata keys, repeated weekdays). Use `findCreateAgentProblem` /
 * `findUpdateAgentProblem`: they run both.
 *
 * Decisions the interface leaves open:
 * - `null` on create means "omitted" for every optional field. On PATCH, `null`
 *   clears a clearable field (system_prompt, welcome_message, transfer_number,
 *   business_hours, metadata → {}) and is invalid for every other field.
 * - `name` is trimmed; it must be 1–100 characters after trimming.
 * - `voice_id` is 1–100 characters; voice libraries are platform-side, so only the shape is checked.
 * - `language` is a lowercase ISO 639-1 code.
 * - `metadata` replaces the whole object on PATCH. Keys: 1–40 characters of
 *   `[A-Za-z0-9_.-]`; at most 10 keys; each value a string of at most 500 characters.
 * - `business_hours.timezone` is any IANA zone Intl knows (not an offset, not a
 *   wrongly cased canonical name); `schedule` has 1–7 items, each weekday at most
 *   once, `open`/`close` are 00:00–23:59 and `close` is after `open` (no overnight spans).
 * - `pii_redaction` replaces the whole setting on PATCH; an omitted `enabled` is false and omitted `categories`
 *   are every detected category (not `caller_number`). Categories are listed at most once; `[]` redacts nothing.
 * - `retention` replaces the whole setting on PATCH, like `pii_redaction`; an omitted or null number of days keeps
 *   that data (`{}` keeps everything). Days are whole numbers from 1 to 3650.
 */
import { plainToInstance, Transform } from 'class-transformer';
import {
  ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsDefined, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Matches, Max, Min,
  ValidateIf, ValidateNested, registerDecorator, type ValidationArguments,
} from 'class-validator';
import { AGENT_STATUSES, PII_REDACTION_CATEGORIES, RETENTION_DAYS, VOICE_PLATFORMS, WEEKDAYS } from './agents.js';
import type { ServiceError } from './errors.js';
import { isPlainObject } from './plain-object.js';
import { allOf, findProblem, MaxChars, saying } from './validation.js';

export const E164_PATTERN = /^\+[1-9]\d{1,14}$/;
export const TIME_OF_DAY_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;
export const METADATA_KEY_PATTERN = /^[A-Za-z0-9_.-]{1,40}$/;

export const AGENT_LIMITS = {
  name: 100,
  voiceId: 100,
  systemPrompt: 10_000,
  welcomeMessage: 500,
  metadataKeys: 10,
  metadataValue: 500,
} as const;

/** Read-only resource fields: rejected in request bodies with "is read-only". */
export const AGENT_READ_ONLY_FIELDS = ['id', 'status', 'created_at', 'updated_at'] as const;
export const AGENT_UPDATE_READ_ONLY_FIELDS = ['id', 'created_at', 'updated_at'] as const;

/** Every ISO 639-1 language code (184). */
export const ISO_639_1_CODES = [
  'aa', 'ab', 'ae', 'af', 'ak', 'am', 'an', 'ar', 'as', 'av', 'ay', 'az', 'ba', 'be', 'bg', 'bh', 'bi', 'bm', 'bn', 'bo',
  'br', 'bs', 'ca', 'ce', 'ch', 'co', 'cr', 'cs', 'cu', 'cv', 'cy', 'da', 'de', 'dv', 'dz', 'ee', 'el', 'en', 'eo', 'es',
  'et', 'eu', 'fa', 'ff', 'fi', 'fj', 'fo', 'fr', 'fy', 'ga', 'gd', 'gl', 'gn', 'gu', 'gv', 'ha', 'he', 'hi', 'ho', 'hr',
  'ht', 'hu', 'hy', 'hz', 'ia', 'id', 'ie', 'ig', 'ii', 'ik', 'io', 'is', 'it', 'iu', 'ja', 'jv', 'ka', 'kg', 'ki', 'kj',
  'kk', 'kl', 'km', 'kn', 'ko', 'kr', 'ks', 'ku', 'kv', 'kw', 'ky', 'la', 'lb', 'lg', 'li', 'ln', 'lo', 'lt', 'lu', 'lv',
  'mg', 'mh', 'mi', 'mk', 'ml', 'mn', 'mr', 'ms', 'mt', 'my', 'na', 'nb', 'nd', 'ne', 'ng', 'nl', 'nn', 'no', 'nr', 'nv',
  'ny', 'oc', 'oj', 'om', 'or', 'os', 'pa', 'pi', 'pl', 'ps', 'pt', 'qu', 'rm', 'rn', 'ro', 'ru', 'rw', 'sa', 'sc', 'sd',
  'se', 'sg', 'si', 'sk', 'sl', 'sm', 'sn', 'so', 'sq', 'sr', 'ss', 'st', 'su', 'sv', 'sw', 'ta', 'te', 'tg', 'th', 'ti',
  'tk', 'tl', 'tn', 'to', 'tr', 'ts', 'tt', 'tw', 'ty', 'ug', 'uk', 'ur', 'uz', 've', 'vi', 'vo', 'wa', 'wo', 'xh', 'yi',
  'yo', 'za', 'zh', 'zu',
] as const;

/**
 * Zone names already found valid. Building an Intl.DateTimeFormat costs tens of microseconds, more than all
 * the other rules of an agent together. Only accepted names are kept, and at most a fixed number of them:
 * Intl accepts an alias in any case (us/eastern), so a client could otherwise grow the set without end.
 */
const KNOWN_TIME_ZONES = new Set<string>();
const MAX_KNOWN_TIME_ZONES = 2000;

/** An IANA zone name Intl knows; offsets and wrongly cased canonical names are refused. */
export function isIanaTimeZone(value: unknown): boolean {
  if (typeof value !== 'string' || !/^[A-Za-z]/.test(value)) return false;
  if (KNOWN_TIME_ZONES.has(value)) return true;
  try {
    const canonical = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
    const valid = !(canonical.toLowerCase() === value.toLowerCase() && canonical !== value);
    if (valid && KNOWN_TIME_ZONES.size < MAX_KNOWN_TIME_ZONES) KNOWN_TIME_ZONES.add(value);
    return valid;
  } catch {
    return false;
  }
}

function IsIanaTimeZone(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isIanaTimeZone',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: ({ property }: ValidationArguments) => `${property} must be an IANA time zone name such as Europe/Paris.` },
      validator: { validate: isIanaTimeZone },
    });
}

/** `close` must be later than the sibling `open` (both already HH:MM). */
function IsAfterOpen(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isAfterOpen',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: ({ property }: ValidationArguments) => `${property} must be later than open.` },
      validator: {
        validate(value: unknown, args: ValidationArguments) {
          const open = (args.object as { open?: unknown }).open;
          if (typeof value !== 'string' || typeof open !== 'string' || !TIME_OF_DAY_PATTERN.test(open)) return true;
          return value > open;
        },
      },
    });
}

/**
 * Nested objects become class instances for ValidateNested. A Transform rather
 * than @Type: @Type needs reflect-metadata, which contracts does not depend on.
 */
function NestedAs(cls: () => new () => object): PropertyDecorator {
  const one = (v: unknown) => (isPlainObject(v) ? plainToInstance(cls(), v, { enableImplicitConversion: false }) : v);
  return (target, key) => Transform(({ value }) => (Array.isArray(value) ? value.map(one) : one(value)))(target, key as string);
}

const trim = Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));

export class ScheduleItemPayload {
  @IsDefined(saying('is required.'))
  @IsIn(WEEKDAYS, { ...saying(`must be one of ${WEEKDAYS.join(', ')}.`), context: { valid_values: WEEKDAYS } })
  day: string;

  @IsDefined(saying('is required.'))
  @Matches(TIME_OF_DAY_PATTERN, saying('must be a 24-hour time HH:MM (00:00–23:59).'))
  open: string;

  @IsDefined(saying('is required.'))
  @Matches(TIME_OF_DAY_PATTERN, saying('must be a 24-hour time HH:MM (00:00–23:59).'))
  @IsAfterOpen()
  close: string;
}

export class BusinessHoursPayload {
  @IsDefined(saying('is required.'))
  @IsIanaTimeZone()
  timezone: string;

  @IsDefined(saying('is required.'))
  @IsArray(saying('must be an array of {day, open, close} items.'))
  @ArrayMinSize(1, saying('must list at least one operating day.'))
  @ArrayMaxSize(WEEKDAYS.length, saying('has at most one item per weekday.'))
  @ValidateNested({ each: true })
  @NestedAs(() => ScheduleItemPayload)
  schedule: ScheduleItemPayload[];
}

export class PiiRedactionPayload {
  @IsOptional() @IsBoolean(saying('must be true or false.')) enabled?: boolean;

  // Each item is checked by findPiiCategoriesProblem, whose field names the item.
  @IsOptional() @IsArray(saying(`must be an array of categories (${PII_REDACTION_CATEGORIES.join(', ')}).`)) categories?: string[];
}

const RetentionDaysRules = allOf(
  IsOptional(),
  IsInt(saying(`must be a whole number of days from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}, or null to keep.`)),
  Min(RETENTION_DAYS.min, saying(`must be at least ${RETENTION_DAYS.min} day, or null to keep.`)),
  Max(RETENTION_DAYS.max, saying(`must be at most ${RETENTION_DAYS.max} days (10 years), or null to keep.`)),
);

export class RetentionPayload {
  @RetentionDaysRules conversations_days?: number | null;
  @RetentionDaysRules recordings_days?: number | null;
}

// ---- field rules shared by create and update ----
const NameRules = allOf(
  trim,
  IsString(saying('must be a string.')),
  IsNotEmpty(saying('must not be empty.')),
  MaxChars(AGENT_LIMITS.name, saying(`must be at most ${AGENT_LIMITS.name} characters.`)),
);
const VoicePlatformRules = IsIn(VOICE_PLATFORMS, {
  ...saying(`must be one of ${VOICE_PLATFORMS.join(', ')}.`),
  context: { valid_values: VOICE_PLATFORMS },
});
const E164Rules = allOf(
  IsString(saying('must be a string.')),
  Matches(E164_PATTERN, saying('must be an E.164 phone number such as +14155550100.')),
);
const VoiceIdRules = allOf(
  IsString(saying('must be a string.')),
  IsNotEmpty(saying('must not be empty.')),
  MaxChars(AGENT_LIMITS.voiceId, saying(`must be at most ${AGENT_LIMITS.voiceId} characters.`)),
);
const LanguageRules = IsIn(ISO_639_1_CODES, saying('must be a lowercase ISO 639-1 language code such as en.'));
const SystemPromptRules = allOf(
  IsString(saying('must be a string.')),
  MaxChars(AGENT_LIMITS.systemPrompt, saying(`must be at most ${AGENT_LIMITS.systemPrompt} characters.`)),
);
const WelcomeMessageRules = allOf(
  IsString(saying('must be a string.')),
  MaxChars(AGENT_LIMITS.welcomeMessage, saying(`must be at most ${AGENT_LIMITS.welcomeMessage} characters.`)),
);
const BooleanRules = IsBoolean(saying('must be true or false.'));
const BusinessHoursRules = allOf(
  IsObject(saying('must be an object with timezone and schedule.')),
  ValidateNested(),
  NestedAs(() => BusinessHoursPayload),
);
const MetadataRules = IsObject(saying('must be an object of string values.'));
const PiiRedactionRules = allOf(
  IsObject(saying('must be an object with enabled and categories.')),
  ValidateNested(),
  NestedAs(() => PiiRedactionPayload),
);
const RetentionRules = allOf(
  IsObject(saying('must be an object with conversations_days and recordings_days.')),
  ValidateNested(),
  NestedAs(() => RetentionPayload),
);

/** Present and not null: PATCH fields that cannot be cleared are validated whenever they are sent. */
const sent = (property: string) => ValidateIf((o: Record<string, unknown>) => o[property] !== undefined);

export class CreateAgentPayload {
  @IsDefined(saying('is required.'))
  @NameRules
  name: string;

  @IsDefined(saying('is required.'))
  @VoicePlatformRules
  voice_platform: string;

  @IsOptional() @E164Rules phone_number?: string | null;
  @IsOptional() @VoiceIdRules voice_id?: string | null;
  @IsOptional() @LanguageRules language?: string | null;
  @IsOptional() @SystemPromptRules system_prompt?: string | null;
  @IsOptional() @WelcomeMessageRules welcome_message?: string | null;
  @IsOptional() @E164Rules transfer_number?: string | null;
  @IsOptional() @BusinessHoursRules business_hours?: BusinessHoursPayload | null;
  @IsOptional() @BooleanRules recording_enabled?: boolean | null;
  @IsOptional() @BooleanRules transcription_enabled?: boolean | null;
  @IsOptional() @PiiRedactionRules pii_redaction?: PiiRedactionPayload | null;
  @IsOptional() @BooleanRules store_content?: boolean | null;
  @IsOptional() @RetentionRules retention?: RetentionPayload | null;
  @IsOptional() @MetadataRules metadata?: Record<string, string> | null;
}

export class UpdateAgentPayload {
  @sent('name') @NameRules name?: string;
  @sent('voice_platform') @VoicePlatformRules voice_platform?: string;
  @sent('phone_number') @E164Rules phone_number?: string;
  @sent('voice_id') @VoiceIdRules voice_id?: string;
  @sent('language') @LanguageRules language?: string;
  @IsOptional() @SystemPromptRules system_prompt?: string | null;
  @IsOptional() @WelcomeMessageRules welcome_message?: string | null;
  @IsOptional() @E164Rules transfer_number?: string | null;
  @IsOptional() @BusinessHoursRules business_hours?: BusinessHoursPayload | null;
  @sent('recording_enabled') @BooleanRules recording_enabled?: boolean;
  @sent('transcription_enabled') @BooleanRules transcription_enabled?: boolean;
  @sent('pii_redaction') @PiiRedactionRules pii_redaction?: PiiRedactionPayload;
  @sent('store_content') @BooleanRules store_content?: boolean;
  @sent('retention') @RetentionRules retention?: RetentionPayload;
  @IsOptional() @MetadataRules metadata?: Record<string, string> | null;

  @sent('status')
  @IsIn(AGENT_STATUSES, { ...saying(`must be one of ${AGENT_STATUSES.join(', ')}.`), context: { valid_values: AGENT_STATUSES } })
  status?: string;
}

/** Per-key metadata rules; the field path names the offending key (`metadata.foo`). */
export function findMetadataProblem(metadata: unknown): ServiceError | undefined {
  if (metadata === null || metadata === undefined || typeof metadata !== 'object' || Array.isArray(metadata)) return undefined;
  const entries = Object.entries(metadata as Record<string, unknown>);
  if (entries.length > AGENT_LIMITS.metadataKeys) {
    return { code: 'invalid_parameter', field: 'metadata', message: `metadata has at most ${AGENT_LIMITS.metadataKeys} keys (got ${entries.length}).` };
  }
  for (const [key, value] of entries) {
    const field = `metadata.${key}`;
    if (!METADATA_KEY_PATTERN.test(key)) {
      return { code: 'invalid_parameter', field, message: 'metadata keys are 1–40 characters of letters, digits, "_", "-" and ".".' };
    }
    if (typeof value !== 'string') return { code: 'invalid_parameter', field, message: `${field} must be a string.` };
    // Characters as a person counts them (code points), like MaxLength does for name and the prompts.
    if ([...value].length > AGENT_LIMITS.metadataValue) {
      return { code: 'invalid_parameter', field, message: `${field} must be at most ${AGENT_LIMITS.metadataValue} characters.` };
    }
  }
  return undefined;
}

/** A weekday listed twice; the field path names the repeat. */
export function findScheduleProblem(businessHours: unknown): ServiceError | undefined {
  const schedule = (businessHours as { schedule?: unknown } | null | undefined)?.schedule;
  if (!Array.isArray(schedule)) return undefined;
  const seen = new Set<string>();
  for (const [i, item] of schedule.entries()) {
    const day = (item as { day?: unknown })?.day;
    if (typeof day !== 'string') continue;
    if (seen.has(day)) {
      return { code: 'invalid_parameter', field: `business_hours.schedule[${i}].day`, message: `${day} is listed more than once in business_hours.schedule.` };
    }
    seen.add(day);
  }
  return undefined;
}

/**
 * The shape of business_hours.schedule, checked before the field rules: class-validator lets nested
 * arrays through ValidateNested and, for a non-array, reports whichever array rule it met last.
 */
function findScheduleShapeProblem(body: unknown): ServiceError | undefined {
  const businessHours = isPlainObject(body) ? body.business_hours : undefined;
  if (!isPlainObject(businessHours) || businessHours.schedule === undefined || businessHours.schedule === null) return undefined;
  const schedule = businessHours.schedule;
  if (!Array.isArray(schedule)) {
    return { code: 'invalid_parameter', field: 'business_hours.schedule', message: 'business_hours.schedule must be an array of {day, open, close} items.' };
  }
  const bad = schedule.findIndex((item) => !isPlainObject(item));
  if (bad >= 0) {
    const field = `business_hours.schedule[${bad}]`;
    return { code: 'invalid_parameter', field, message: `${field} must be an object with day, open and close.` };
  }
  return undefined;
}

/** An unknown or repeated redaction category; the field path names the item (`pii_redaction.categories[2]`). */
export function findPiiCategoriesProblem(piiRedaction: unknown): ServiceError | undefined {
  const categories = isPlainObject(piiRedaction) ? piiRedaction.categories : undefined;
  if (!Array.isArray(categories)) return undefined;
  const seen = new Set<unknown>();
  for (const [i, category] of categories.entries()) {
    const field = `pii_redaction.categories[${i}]`;
    if (!(PII_REDACTION_CATEGORIES as readonly unknown[]).includes(category)) {
      return { code: 'invalid_parameter', field, message: `${field} must be one of ${PII_REDACTION_CATEGORIES.join(', ')}.` };
    }
    if (seen.has(category)) return { code: 'invalid_parameter', field, message: `${String(category)} is listed more than once in pii_redaction.categories.` };
    seen.add(category);
  }
  return undefined;
}

function findAgentFieldProblems(body: Record<string, unknown>): ServiceError | undefined {
  return findScheduleProblem(body.business_hours) ?? findMetadataProblem(body.metadata) ?? findPiiCategoriesProblem(body.pii_redaction);
}

export function findCreateAgentProblem(body: unknown): ServiceError | undefined {
  return (
    findScheduleShapeProblem(body) ??
    findProblem(CreateAgentPayload, body, { readOnly: AGENT_READ_ONLY_FIELDS }) ??
    findAgentFieldProblems(body as Record<string, unknown>)
  );
}

export function findUpdateAgentProblem(body: unknown): ServiceError | undefined {
  return (
    findScheduleShapeProblem(body) ??
    findProblem(UpdateAgentPayload, body, { readOnly: AGENT_UPDATE_READ_ONLY_FIELDS }) ??
    findAgentFieldProblems(body as Record<string, unknown>)
  );
}

/** Reply of agents.delete; the gateway answers 204 No Content. */
export interface DeleteAgentReply {
  id: string;
  deleted: true;
}
