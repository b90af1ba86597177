import { randomBytes } from 'node:crypto';
import { PlaceCallError, type BegunCall, type PlaceCallOptions, type PlacedCall } from '../calls/call-options.js';
import { buildCallTimeline, validatePlaceCallOptions } from '../calls/call-timeline.js';
import { applyChaos, deliverEvents, deliveryPolicy } from '../calls/webhook-delivery.js';
import { isPlainObject } from '@voice/contracts';
import { INVALID_JSON, type Reply, type SimulatorRequest } from '../http-io.js';
import { isAreaCode, isE164 } from '../field-formats.js';
import { PhoneNumberPool } from '../phone-number-pool.js';
import { pageOf } from '../paging.js';
import { SimulatorServer, type PersistedState, type SimulatorOptions } from '../simulator-server.js';
import { PLATFORM_A_DEFAULT_LANGUAGE, PLATFORM_A_DEFAULT_VOICE, PLATFORM_A_VOICES, readAgentFields, type PlatformAAgent } from './agent-fields.js';
import { PLATFORM_A_DIAL_FAILURES, platformACallEvents, platformAReason, platformAUnknownEvent } from './call-events.js';
import { signPlatformAWebhook } from './signing.js';

export interface PlatformAPhoneNumber {
  phone_number: string;
  inbound_agent_id: string | null;
  purchased: boolean;
}

/** Where a call's webhooks go when the called agent has no number bound and the caller names none. */
const FALLBACK_CALLED_NUMBER = '+14155550199';

/** platform_a: the "call object" family (platforms.md). Agents, phone numbers, and signed call webhooks. */
export class PlatformASimulator extends SimulatorServer {
  readonly platform = 'platform_a' as const;
  private readonly voices: readonly string[];
  private readonly agentsById = new Map<string, PlatformAAgent>();
  private readonly numbers = new Map<string, PlatformAPhoneNumber>();
  private readonly pool = new PhoneNumberPool();

  constructor(options: SimulatorOptions = {}) {
    super(options);
    this.voices = [...new Set([PLATFORM_A_DEFAULT_VOICE, ...(options.voices ?? PLATFORM_A_VOICES)])];
  }

  /** Creates a simulator and starts it on `port` (ephemeral by default). */
  static async start(options: SimulatorOptions & { port?: number; host?: string } = {}): Promise<PlatformASimulator> {
    const simulator = new PlatformASimulator(options);
    await simulator.start(options.port ?? 0, options.host);
    return simulator;
  }

  knownVoices(): string[] {
    return [...this.voices];
  }

  agents(): PlatformAAgent[] {
    return [...this.agentsById.values()].map((agent) => structuredClone(agent));
  }

  phoneNumbers(): PlatformAPhoneNumber[] {
    return [...this.numbers.values()].map((number) => ({ ...number }));
  }

  /** Places an inbound call to the agent and starts delivering its webhooks. */
  beginCall(options: PlaceCallOptions): BegunCall {
    validatePlaceCallOptions(options);
    const agent = this.agentsById.get(options.agentId);
    if (!agent) throw new PlaceCallError(`platform_a has no agent ${options.agentId}`, 404);
    const webhookUrl = options.webhookUrl ?? agent.webhook_url;
    if (!webhookUrl) throw new PlaceCallError(`agent ${agent.agent_id} has no webhook_url and no webhookUrl was given`);
    const policy = deliveryPolicy(options.delivery, { defaultRetries: 3, maxRetries: 3, backoff: 'fixed' });
    const outcome = options.outcome ?? 'completed';
    const reason = platformAReason(outcome, options.reason);
    const timeline = buildCallTimeline(options, !PLATFORM_A_DIAL_FAILURES.includes(reason));
    const boundNumber = [...this.numbers.values()].find((number) => number.inbound_agent_id === agent.agent_id)?.phone_number;
    const callId = `call_${randomBytes(16).toString('hex')}`;
    const context = {
      callId,
      agent: structuredClone(agent),
      toNumber: options.toNumber ?? boundNumber ?? FALLBACK_CALLED_NUMBER,
      reason,
      recordingUrl: this.recordCall(callId, timeline, options.recorded ?? true),
    };
    const events = applyChaos(platformACallEvents(timeline, context), options.chaos, platformAUnknownEvent(context), (event) => event.type === 'call_ended');
    const secret = this.webhookSecret;
    const settled = deliverEvents(webhookUrl, events, (rawBody) => signPlatformAWebhook(rawBody, secret), policy, options.live ? timeline.startedAt : undefined).then(
      (deliveries): PlacedCall => ({ platform: this.platform, callId, agentId: agent.agent_id, outcome, reason, webhookUrl, deliveries }),
    );
    return { platform: this.platform, callId, recordingUrl: context.recordingUrl, settled };
  }

  protected resetState(): void {
    this.agentsById.clear();
    this.numbers.clear();
  }

  protected persistedState(): Omit<PersistedState, 'platform'> {
    return { agents: this.agents(), phoneNumbers: this.phoneNumbers(), issuedNumbers: this.pool.issuedNumbers() };
  }

  protected restoreState(state: PersistedState): void {
    for (const agent of state.agents as PlatformAAgent[]) this.agentsById.set(agent.agent_id, agent);
    for (const number of state.phoneNumbers as PlatformAPhoneNumber[]) this.numbers.set(number.phone_number, number);
    this.pool.restore(state.issuedNumbers ?? []);
  }

  protected errorReply(status: number, message: string): Reply {
    return { status, body: { status, error_message: message } };
  }

  protected route(request: SimulatorRequest): Reply {
    if (request.body === INVALID_JSON) return this.errorReply(400, 'request body is not valid JSON');
    const [version, collection, id, ...rest] = request.segments;
    if (version === 'v2' && rest.length === 0) {
      const key = `${request.method} ${collection}${id === undefined ? '' : '/:id'}`;
      switch (key) {
        case 'POST agents':
          return this.createAgent(request.body);
        case 'GET agents':
          return this.listAgents(request.query);
        case 'GET agents/:id':
          return this.withAgent(id, (agent) => ({ status: 200, body: agent }));
        case 'PATCH agents/:id':
          return this.withAgent(id, (agent) => this.updateAgent(agent, request.body));
        case 'DELETE agents/:id':
          return this.withAgent(id, (agent) => this.deleteAgent(agent));
        case 'POST phone-numbers':
          return this.addNumber(request.body);
        case 'GET phone-numbers':
          return this.listNumbers(request.query);
        case 'PATCH phone-numbers/:id':
          return this.withNumber(id, (number) => this.bindNumber(number, request.body));
        case 'DELETE phone-numbers/:id':
          return this.withNumber(id, (number) => this.releaseNumber(number));
      }
    }
    return this.errorReply(404, `no route ${request.method} ${request.path}`);
  }

  private createAgent(body: unknown): Reply {
    const read = readAgentFields(body, this.voices);
    if ('error' in read) return this.errorReply(read.error.status, read.error.message);
    const agent: PlatformAAgent = {
      agent_id: `agent_${randomBytes(16).toString('hex')}`,
      agent_name: null,
      voice_id: PLATFORM_A_DEFAULT_VOICE,
      language: PLATFORM_A_DEFAULT_LANGUAGE,
      prompt: null,
      begin_message: null,
      transfer_number: null,
      webhook_url: null,
      metadata: {},
      ...read.fields,
      last_modified_timestamp: Date.now(),
    };
    this.agentsById.set(agent.agent_id, agent);
    return { status: 201, body: agent };
  }

  /**
   * Without a filter every agent is listed; `metadata.external_id` must match exactly. `limit` (1–1000) pages by
   * agent_id: `pagination_key` is the last agent_id of the previous page, given back while more follow.
   */
  private listAgents(query: URLSearchParams): Reply {
    const externalId = query.get('metadata.external_id');
    const matching = [...this.agentsById.values()].filter((agent) => externalId === null || agent.metadata.external_id === externalId);
    return this.pageReply(pageOf(matching, (agent) => agent.agent_id, query.get('limit'), query.get('pagination_key')));
  }

  /** Every number of the account, paged as the agents are (by phone_number). */
  private listNumbers(query: URLSearchParams): Reply {
    return this.pageReply(pageOf([...this.numbers.values()], (number) => number.phone_number, query.get('limit'), query.get('pagination_key')));
  }

  private pageReply(page: ReturnType<typeof pageOf<unknown>>): Reply {
    if ('error' in page) return this.errorReply(422, page.error);
    return { status: 200, body: page.next === undefined ? { items: page.items } : { items: page.items, pagination_key: page.next } };
  }

  /** A PATCH replaces each field it names; `metadata` is replaced as a whole, not merged. */
  private updateAgent(agent: PlatformAAgent, body: unknown): Reply {
    const read = readAgentFields(body, this.voices);
    if ('error' in read) return this.errorReply(read.error.status, read.error.message);
    Object.assign(agent, read.fields);
    // Strictly increasing, so two PATCHes in the same millisecond still tell apart.
    agent.last_modified_timestamp = Math.max(Date.now(), agent.last_modified_timestamp + 1);
    return { status: 200, body: agent };
  }

  /** Numbers that answered with the deleted agent stop answering (as a PATCH to null would). */
  private deleteAgent(agent: PlatformAAgent): Reply {
    this.agentsById.delete(agent.agent_id);
    for (const number of this.numbers.values()) if (number.inbound_agent_id === agent.agent_id) number.inbound_agent_id = null;
    return { status: 204 };
  }

  private addNumber(body: unknown): Reply {
    if (!isPlainObject(body)) return this.errorReply(400, 'request body must be a JSON object');
    const unknown = Object.keys(body).find((key) => !['area_code', 'phone_number', 'inbound_agent_id'].includes(key));
    if (unknown !== undefined) return this.errorReply(422, `unknown field '${unknown}'`);
    const agentProblem = this.inboundAgentProblem(body.inbound_agent_id);
    if (agentProblem) return agentProblem;
    const inboundAgentId = (body.inbound_agent_id ?? null) as string | null;
    if (body.phone_number !== undefined && body.area_code !== undefined) return this.errorReply(422, 'give either area_code (to buy) or phone_number (to import), not both');
    if (body.phone_number !== undefined) {
      if (!isE164(body.phone_number)) return this.errorReply(422, `phone_number '${String(body.phone_number)}' is not an E.164 number`);
      if (this.numbers.has(body.phone_number)) return this.errorReply(409, `phone number ${body.phone_number} is already registered`);
      return this.register({ phone_number: body.phone_number, inbound_agent_id: inboundAgentId, purchased: false });
    }
    // platforms.md says "3 digits"; integrators send it as a string or as a number.
    const areaCode = typeof body.area_code === 'number' ? String(body.area_code) : body.area_code;
    if (areaCode !== undefined && areaCode !== null && !isAreaCode(areaCode)) return this.errorReply(422, `area_code '${String(body.area_code)}' must be 3 digits`);
    const area = (areaCode ?? undefined) as string | undefined;
    if (this.faults.isNumberUnavailable(area)) {
      return this.errorReply(422, area === undefined ? 'no phone number available' : `no phone number available in area code ${area}`);
    }
    const phoneNumber = this.pool.issue(area, (number) => this.numbers.has(number));
    return this.register({ phone_number: phoneNumber, inbound_agent_id: inboundAgentId, purchased: true });
  }

  private register(number: PlatformAPhoneNumber): Reply {
    this.numbers.set(number.phone_number, number);
    return { status: 201, body: number };
  }

  private bindNumber(number: PlatformAPhoneNumber, body: unknown): Reply {
    if (!isPlainObject(body)) return this.errorReply(400, 'request body must be a JSON object');
    const unknown = Object.keys(body).find((key) => key !== 'inbound_agent_id');
    if (unknown !== undefined) return this.errorReply(422, `unknown field '${unknown}'`);
    if ('inbound_agent_id' in body) {
      const agentProblem = this.inboundAgentProblem(body.inbound_agent_id);
      if (agentProblem) return agentProblem;
      number.inbound_agent_id = body.inbound_agent_id as string | null;
    }
    return { status: 200, body: number };
  }

  /** A purchased number goes back to the carrier, an imported one is forgotten: either way it is gone here. */
  private releaseNumber(number: PlatformAPhoneNumber): Reply {
    this.numbers.delete(number.phone_number);
    return { status: 204 };
  }

  private inboundAgentProblem(value: unknown): Reply | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') return this.errorReply(422, 'inbound_agent_id must be a string or null');
    if (!this.agentsById.has(value)) return this.errorReply(422, `inbound_agent_id '${value}' does not exist`);
    return undefined;
  }

  private withAgent(id: string, action: (agent: PlatformAAgent) => Reply): Reply {
    const agent = this.agentsById.get(id);
    return agent ? action(agent) : this.errorReply(404, `agent ${id} not found`);
  }

  private withNumber(phoneNumber: string, action: (number: PlatformAPhoneNumber) => Reply): Reply {
    const number = this.numbers.get(phoneNumber);
    return number ? action(number) : this.errorReply(404, `phone number ${phoneNumber} not found`);
  }
}
