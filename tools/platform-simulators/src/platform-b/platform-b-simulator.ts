import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { PlaceCallError, type BegunCall, type PlaceCallOptions, type PlacedCall } from '../calls/call-options.js';
import { buildCallTimeline, validatePlaceCallOptions } from '../calls/call-timeline.js';
import { applyChaos, deliverEvents, deliveryPolicy } from '../calls/webhook-delivery.js';
import { isPlainObject } from '@voice/contracts';
import { INVALID_JSON, type Reply, type SimulatorRequest } from '../http-io.js';
import { isAreaCode, isE164 } from '../field-formats.js';
import { PhoneNumberPool } from '../phone-number-pool.js';
import { pageOf } from '../paging.js';
import { SimulatorServer, type PersistedState, type SimulatorOptions } from '../simulator-server.js';
import { PLATFORM_B_DEFAULT_VOICE, PLATFORM_B_VOICES, readAssistantFields, type AssistantChanges, type AssistantFields, type PlatformBAssistant } from './assistant-fields.js';
import { isPlatformBEndEvent, PLATFORM_B_DIAL_FAILURES, platformBCallEvents, platformBReason, platformBUnknownEvent } from './call-events.js';
import { signPlatformBWebhook } from './signing.js';

export interface PlatformBPhoneNumber {
  id: string;
  number: string;
  assistantId: string | null;
}

const FALLBACK_CALLED_NUMBER = '+14155550199';

/** platform_b: the "message envelope" family (platforms.md). Assistants, phone numbers, and signed server messages. */
export class PlatformBSimulator extends SimulatorServer {
  readonly platform = 'platform_b' as const;
  private readonly voices: readonly string[];
  private readonly assistantsById = new Map<string, PlatformBAssistant>();
  private readonly numbersById = new Map<string, PlatformBPhoneNumber>();
  private readonly pool = new PhoneNumberPool();

  constructor(options: SimulatorOptions = {}) {
    super(options);
    this.voices = [...new Set([PLATFORM_B_DEFAULT_VOICE, ...(options.voices ?? PLATFORM_B_VOICES)])];
  }

  /** Creates a simulator and starts it on `port` (ephemeral by default). */
  static async start(options: SimulatorOptions & { port?: number; host?: string } = {}): Promise<PlatformBSimulator> {
    const simulator = new PlatformBSimulator(options);
    await simulator.start(options.port ?? 0, options.host);
    return simulator;
  }

  knownVoices(): string[] {
    return [...this.voices];
  }

  /** The assistants (platform_b's agents). */
  agents(): PlatformBAssistant[] {
    return [...this.assistantsById.values()].map((assistant) => structuredClone(assistant));
  }

  phoneNumbers(): PlatformBPhoneNumber[] {
    return [...this.numbersById.values()].map((number) => ({ ...number }));
  }

  /** Places an inbound call to the assistant and starts delivering its messages. */
  beginCall(options: PlaceCallOptions): BegunCall {
    validatePlaceCallOptions(options);
    const assistant = this.assistantsById.get(options.agentId);
    if (!assistant) throw new PlaceCallError(`platform_b has no assistant ${options.agentId}`, 404);
    const webhookUrl = options.webhookUrl ?? assistant.server?.url;
    if (!webhookUrl) throw new PlaceCallError(`assistant ${assistant.id} has no server.url and no webhookUrl was given`);
    const policy = deliveryPolicy(options.delivery, { defaultRetries: 0, maxRetries: 10, backoff: 'exponential' });
    const outcome = options.outcome ?? 'completed';
    const reason = platformBReason(outcome, options.reason);
    const timeline = buildCallTimeline(options, !PLATFORM_B_DIAL_FAILURES.includes(reason));
    const boundNumber = [...this.numbersById.values()].find((number) => number.assistantId === assistant.id)?.number;
    const callId = randomUUID();
    const context = {
      callId,
      assistantId: assistant.id,
      toNumber: options.toNumber ?? boundNumber ?? FALLBACK_CALLED_NUMBER,
      reason,
      recordingUrl: this.recordCall(callId, timeline, options.recorded ?? true),
    };
    const events = applyChaos(platformBCallEvents(timeline, context), options.chaos, platformBUnknownEvent(timeline, context), isPlatformBEndEvent);
    const secret = this.webhookSecret;
    const settled = deliverEvents(webhookUrl, events, (rawBody) => signPlatformBWebhook(rawBody, secret), policy, options.live ? timeline.startedAt : undefined).then(
      (deliveries): PlacedCall => ({ platform: this.platform, callId, agentId: assistant.id, outcome, reason, webhookUrl, deliveries }),
    );
    return { platform: this.platform, callId, recordingUrl: context.recordingUrl, settled };
  }

  protected resetState(): void {
    this.assistantsById.clear();
    this.numbersById.clear();
  }

  protected persistedState(): Omit<PersistedState, 'platform'> {
    return { agents: this.agents(), phoneNumbers: this.phoneNumbers(), issuedNumbers: this.pool.issuedNumbers() };
  }

  protected restoreState(state: PersistedState): void {
    for (const assistant of state.agents as PlatformBAssistant[]) this.assistantsById.set(assistant.id, assistant);
    for (const number of state.phoneNumbers as PlatformBPhoneNumber[]) this.numbersById.set(number.id, number);
    this.pool.restore(state.issuedNumbers ?? []);
  }

  /** `{ statusCode, error, message }`, `message` an array for validation problems and a string otherwise. */
  protected errorReply(status: number, message: string | string[]): Reply {
    return { status, body: { statusCode: status, error: STATUS_CODES[status] ?? 'Error', message } };
  }

  protected route(request: SimulatorRequest): Reply {
    if (request.body === INVALID_JSON) return this.errorReply(400, 'request body is not valid JSON');
    const [collection, id, ...rest] = request.segments;
    if (rest.length === 0) {
      switch (`${request.method} ${collection}${id === undefined ? '' : '/:id'}`) {
        case 'POST assistant':
          return this.createAssistant(request.body);
        case 'GET assistant':
          return this.listAssistants(request.query);
        case 'GET assistant/:id':
          return this.withAssistant(id, (assistant) => ({ status: 200, body: assistant }));
        case 'PATCH assistant/:id':
          return this.withAssistant(id, (assistant) => this.updateAssistant(assistant, request.body));
        case 'DELETE assistant/:id':
          return this.withAssistant(id, (assistant) => this.deleteAssistant(assistant));
        case 'POST phone-number':
          return this.addNumber(request.body);
        case 'GET phone-number':
          return this.listNumbers(request.query);
        case 'PATCH phone-number/:id':
          return this.withNumber(id, (number) => this.bindNumber(number, request.body));
        case 'DELETE phone-number/:id':
          return this.withNumber(id, (number) => this.releaseNumber(number));
      }
    }
    return this.errorReply(404, `Cannot ${request.method} ${request.path}`);
  }

  private createAssistant(body: unknown): Reply {
    const read = readAssistantFields(body, this.voices);
    if ('problems' in read) return this.errorReply(400, read.problems);
    const now = new Date().toISOString();
    const fields: AssistantFields = { voice: { voiceId: PLATFORM_B_DEFAULT_VOICE } };
    applyChanges(fields, read.changes);
    const assistant: PlatformBAssistant = { id: randomUUID(), ...fields, createdAt: now, updatedAt: now };
    this.assistantsById.set(assistant.id, assistant);
    return { status: 201, body: assistant };
  }

  /**
   * Without a filter every assistant is listed; `externalId` must equal `metadata.externalId` exactly. `limit`
   * (1–1000) pages by id: `after` is the last id of the previous page (a bare array carries no cursor, so a page
   * shorter than the limit is the last).
   */
  private listAssistants(query: URLSearchParams): Reply {
    const externalId = query.get('externalId');
    const matching = [...this.assistantsById.values()].filter((assistant) => externalId === null || assistant.metadata?.externalId === externalId);
    return this.pageReply(pageOf(matching, (assistant) => assistant.id, query.get('limit'), query.get('after')));
  }

  /** Every number of the account, paged as the assistants are (by id). */
  private listNumbers(query: URLSearchParams): Reply {
    return this.pageReply(pageOf([...this.numbersById.values()], (number) => number.id, query.get('limit'), query.get('after')));
  }

  private pageReply(page: ReturnType<typeof pageOf<unknown>>): Reply {
    return 'error' in page ? this.errorReply(400, [page.error]) : { status: 200, body: page.items };
  }

  /** A PATCH replaces each top-level property it names (nested objects as a whole); `null` removes it. */
  private updateAssistant(assistant: PlatformBAssistant, body: unknown): Reply {
    const read = readAssistantFields(body, this.voices);
    if ('problems' in read) return this.errorReply(400, read.problems);
    applyChanges(assistant, read.changes);
    // Strictly later than before, so two PATCHes in the same millisecond still tell apart.
    assistant.updatedAt = new Date(Math.max(Date.now(), Date.parse(assistant.updatedAt) + 1)).toISOString();
    return { status: 200, body: assistant };
  }

  /** Numbers that answered with the deleted assistant stop answering (as a PATCH to null would). */
  private deleteAssistant(assistant: PlatformBAssistant): Reply {
    this.assistantsById.delete(assistant.id);
    for (const number of this.numbersById.values()) if (number.assistantId === assistant.id) number.assistantId = null;
    return { status: 200, body: assistant };
  }

  private addNumber(body: unknown): Reply {
    if (!isPlainObject(body)) return this.errorReply(400, ['request body must be a JSON object']);
    const problems = Object.keys(body)
      .filter((key) => !['number', 'areaCode', 'assistantId'].includes(key))
      .map((key) => `property ${key} should not exist`);
    problems.push(...this.assistantIdProblems(body.assistantId));
    const areaCode = typeof body.areaCode === 'number' ? String(body.areaCode) : body.areaCode;
    if (body.number !== undefined && !isE164(body.number)) problems.push('number must be a valid E.164 phone number');
    if (areaCode !== undefined && !isAreaCode(areaCode)) problems.push('areaCode must be 3 digits');
    if ((body.number === undefined) === (areaCode === undefined)) problems.push('give exactly one of number (to import) or areaCode (to buy)');
    if (problems.length > 0) return this.errorReply(400, problems);
    const assistantId = (body.assistantId ?? null) as string | null;
    const registered = (number: string) => [...this.numbersById.values()].some((entry) => entry.number === number);
    if (typeof body.number === 'string') {
      if (registered(body.number)) return this.errorReply(400, `number ${body.number} is already registered`);
      return this.register(body.number, assistantId);
    }
    const area = areaCode as string;
    if (this.faults.isNumberUnavailable(area)) return this.errorReply(400, `no phone number available in area code ${area}`);
    return this.register(this.pool.issue(area, registered), assistantId);
  }

  private register(number: string, assistantId: string | null): Reply {
    const entry: PlatformBPhoneNumber = { id: randomUUID(), number, assistantId };
    this.numbersById.set(entry.id, entry);
    return { status: 201, body: entry };
  }

  private bindNumber(number: PlatformBPhoneNumber, body: unknown): Reply {
    if (!isPlainObject(body)) return this.errorReply(400, ['request body must be a JSON object']);
    const problems = Object.keys(body)
      .filter((key) => key !== 'assistantId')
      .map((key) => `property ${key} should not exist`);
    problems.push(...this.assistantIdProblems(body.assistantId));
    if (problems.length > 0) return this.errorReply(400, problems);
    if ('assistantId' in body) number.assistantId = body.assistantId as string | null;
    return { status: 200, body: number };
  }

  private releaseNumber(number: PlatformBPhoneNumber): Reply {
    this.numbersById.delete(number.id);
    return { status: 200, body: number };
  }

  private assistantIdProblems(value: unknown): string[] {
    if (value === undefined || value === null) return [];
    if (typeof value !== 'string') return ['assistantId must be a string'];
    return this.assistantsById.has(value) ? [] : [`assistantId ${value} does not name an existing assistant`];
  }

  private withAssistant(id: string, action: (assistant: PlatformBAssistant) => Reply): Reply {
    const assistant = this.assistantsById.get(id);
    return assistant ? action(assistant) : this.errorReply(404, `Assistant with id ${id} not found`);
  }

  private withNumber(id: string, action: (number: PlatformBPhoneNumber) => Reply): Reply {
    const number = this.numbersById.get(id);
    return number ? action(number) : this.errorReply(404, `Phone number with id ${id} not found`);
  }
}

/** `null` removes a property; a removed voice falls back to the platform's default voice. */
function applyChanges(assistant: AssistantFields, changes: AssistantChanges): void {
  const target = assistant as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete target[key];
    else target[key] = value;
  }
  if (!assistant.voice) assistant.voice = { voiceId: PLATFORM_B_DEFAULT_VOICE };
}
