/**
 * A platform's management API behind the VoicePlatformAdapter port: the HTTP calls, the same for every
 * platform; what differs (paths, bodies, answers, errors) is the platform's ManagementDialect, written in
 * its folder (platform-<name>/management.ts).
 */
import type { VoicePlatform } from '@voice/contracts';
import type { PlatformFailure } from './platform-call-failed.js';
import {
  isSuccess, LISTING_PAGE_SIZE, listingHttpOptions, PlatformHttp, readAllPages, segment, type PlatformAnswer, type PlatformHttpOptions,
} from './platform-http.js';
import type {
  AcquireNumberRequest, ListedPlatformAgent, ListedPlatformNumber, PlatformAgentChanges, PlatformAgentRef, PlatformAgentSpec, PlatformAgentTarget, PlatformConnection,
  PlatformNumber, PlatformNumberRef, StoredAgentFields, VoicePlatformAdapter,
} from './voice-platform.port.js';

/** What a call was about, for reading a refusal: agent fields, or a number bought, imported or bound. */
export type ManagementOperation = 'agent' | 'buy_number' | 'import_number' | 'number';

type Page<T> = { items: T[]; next: string | undefined } | 'unreadable';

/** One platform's management API: everything the adapter needs to know about its wire format. Pure. */
export interface ManagementDialect {
  readonly platform: VoicePlatform;
  /** What the platform calls an agent, in messages about its answers. */
  readonly agentNoun: string;
  /** The collections; one item is `<collection>/<its id>`. */
  readonly agentsPath: string;
  readonly numbersPath: string;
  /** The agents query that finds ours by its id. */
  searchQuery(externalId: string): Record<string, string>;
  agentFromSearch(answer: unknown, externalId: string): PlatformAgentRef | 'unreadable' | undefined;
  agentRef(answer: unknown): PlatformAgentRef | undefined;
  createBody(spec: PlatformAgentSpec): unknown;
  /** Only the given changes; `externalId` for fields derived from our id. */
  changesBody(changes: PlatformAgentChanges, externalId: string): Record<string, unknown>;
  /** A number request the platform cannot serve, refused before any call. */
  numberRequestProblem?(request: AcquireNumberRequest): PlatformFailure | undefined;
  numberBody(request: AcquireNumberRequest): unknown;
  numberFromAnswer(answer: unknown, request: AcquireNumberRequest): PlatformNumber | undefined;
  bindBody(platformAgentId: string | null): unknown;
  /** A non-2xx answer as our failure. */
  failure(operation: ManagementOperation, answer: PlatformAnswer, now?: number): PlatformFailure;
  storedFields(spec: PlatformAgentSpec): StoredAgentFields;
  listedAgent(item: unknown): ListedPlatformAgent | undefined;
  listedNumber(item: unknown): ListedPlatformNumber | undefined;
  /** The paging part of a listing query, after `cursor` (the first page without). */
  pageQuery(cursor: string | undefined): Record<string, string>;
  /** One listing page, each item read by `read`; `cursorOf` names the item a page ends with. */
  page<T>(answer: unknown, pageSize: number, read: (item: unknown) => T | undefined, cursorOf: (item: T) => string): Page<T>;
}

/** An external id no agent of ours has: the credentials check searches for it and expects an empty list. */
const CREDENTIALS_PROBE_ID = 'credentials-check';

export class ManagementAdapter implements VoicePlatformAdapter {
  readonly platform: VoicePlatform;
  private readonly http: PlatformHttp;
  private readonly listing: PlatformHttp;

  constructor(private readonly dialect: ManagementDialect, options: PlatformHttpOptions = {}) {
    this.platform = dialect.platform;
    this.http = new PlatformHttp(this.platform, options);
    this.listing = new PlatformHttp(this.platform, listingHttpOptions(options));
  }

  async verifyCredentials(connection: PlatformConnection): Promise<void> {
    this.succeed('agent', await this.http.send(connection, 'GET', this.dialect.agentsPath, { query: this.dialect.searchQuery(CREDENTIALS_PROBE_ID) }));
  }

  async findAgentByExternalId(connection: PlatformConnection, externalId: string): Promise<PlatformAgentRef | undefined> {
    const answer = this.succeed('agent', await this.http.send(connection, 'GET', this.dialect.agentsPath, { query: this.dialect.searchQuery(externalId) }));
    const found = this.dialect.agentFromSearch(answer.json, externalId);
    if (found === 'unreadable') throw this.http.unexpectedAnswer(`the ${this.dialect.agentNoun} search`, answer);
    return found;
  }

  async createAgent(connection: PlatformConnection, spec: PlatformAgentSpec): Promise<PlatformAgentRef> {
    const answer = this.succeed('agent', await this.http.send(connection, 'POST', this.dialect.agentsPath, { body: this.dialect.createBody(spec) }));
    const ref = this.dialect.agentRef(answer.json);
    if (!ref) throw this.http.unexpectedAnswer(`the ${this.dialect.agentNoun} creation`, answer);
    return ref;
  }

  async updateAgent(connection: PlatformConnection, agent: PlatformAgentTarget, changes: PlatformAgentChanges): Promise<void> {
    const body = this.dialect.changesBody(changes, agent.external_id);
    if (Object.keys(body).length === 0) return;
    this.succeed('agent', await this.http.send(connection, 'PATCH', this.agentPath(agent.platform_agent_id), { body }));
  }

  async deleteAgent(connection: PlatformConnection, platformAgentId: string): Promise<void> {
    const answer = await this.http.send(connection, 'DELETE', this.agentPath(platformAgentId));
    if (answer.status !== 404) this.succeed('agent', answer);
  }

  async acquireNumber(connection: PlatformConnection, request: AcquireNumberRequest): Promise<PlatformNumber> {
    const problem = this.dialect.numberRequestProblem?.(request);
    if (problem) throw this.http.failed(problem);
    const operation = request.phone_number !== undefined ? 'import_number' : 'buy_number';
    const answer = this.succeed(operation, await this.http.send(connection, 'POST', this.dialect.numbersPath, { body: this.dialect.numberBody(request) }));
    const number = this.dialect.numberFromAnswer(answer.json, request);
    if (!number) throw this.http.unexpectedAnswer('the phone number request', answer);
    return number;
  }

  async bindNumber(connection: PlatformConnection, number: PlatformNumberRef, platformAgentId: string | null): Promise<void> {
    this.succeed('number', await this.http.send(connection, 'PATCH', this.numberPath(number), { body: this.dialect.bindBody(platformAgentId) }));
  }

  async releaseNumber(connection: PlatformConnection, number: PlatformNumberRef): Promise<void> {
    const answer = await this.http.send(connection, 'DELETE', this.numberPath(number));
    if (answer.status !== 404) this.succeed('number', answer);
  }

  async listAgents(connection: PlatformConnection): Promise<ListedPlatformAgent[]> {
    return this.list(connection, this.dialect.agentsPath, this.dialect.agentNoun, (item) => this.dialect.listedAgent(item), (agent) => agent.platform_agent_id);
  }

  async listNumbers(connection: PlatformConnection): Promise<ListedPlatformNumber[]> {
    return this.list(connection, this.dialect.numbersPath, 'phone number', (item) => this.dialect.listedNumber(item), (number) => number.platform_number_id);
  }

  storedFields(spec: PlatformAgentSpec): StoredAgentFields {
    return this.dialect.storedFields(spec);
  }

  private agentPath(platformAgentId: string): string {
    return `${this.dialect.agentsPath}/${segment(platformAgentId)}`;
  }

  private numberPath(number: PlatformNumberRef): string {
    return `${this.dialect.numbersPath}/${segment(number.platform_number_id)}`;
  }

  private list<T>(
    connection: PlatformConnection,
    path: string,
    what: string,
    read: (item: unknown) => T | undefined,
    cursorOf: (item: T) => string,
  ): Promise<T[]> {
    return readAllPages(this.listing, what, async (cursor) => {
      const query: Record<string, string> = { limit: String(LISTING_PAGE_SIZE), ...this.dialect.pageQuery(cursor) };
      const answer = this.succeed('agent', await this.listing.send(connection, 'GET', path, { query }));
      const page = this.dialect.page(answer.json, LISTING_PAGE_SIZE, read, cursorOf);
      if (page === 'unreadable') throw this.listing.unexpectedAnswer(`the ${what} listing`, answer);
      return page;
    });
  }

  private succeed(operation: ManagementOperation, answer: PlatformAnswer): PlatformAnswer {
    if (isSuccess(answer)) return answer;
    throw this.http.failed(this.dialect.failure(operation, answer));
  }
}
