/** platform_b behind the VoicePlatformAdapter port: the HTTP calls; every mapping lives in platform-b.mapping.ts. */
import {
  platformBAgentFromSearch, platformBAgentRef, platformBAssistantBody, platformBAssistantChanges, platformBFailure, platformBNumberBody,
  platformBListedAgent, platformBListedNumber, platformBNumberFromAnswer, platformBNumberRequestProblem, platformBPage, platformBStoredFields,
  type PlatformBOperation,
} from './platform-b.mapping.js';
import {
  isSuccess, LISTING_PAGE_SIZE, listingHttpOptions, PlatformHttp, readAllPages, segment, type PlatformAnswer, type PlatformHttpOptions,
} from './platform-http.js';
import type {
  AcquireNumberRequest, ListedPlatformAgent, ListedPlatformNumber, PlatformAgentChanges, PlatformAgentRef, PlatformAgentSpec, PlatformAgentTarget, PlatformConnection,
  PlatformNumber, PlatformNumberRef, StoredAgentFields, VoicePlatformAdapter,
} from './voice-platform.port.js';

/** An external id no agent of ours has: the credentials check searches for it and expects an empty list. */
const CREDENTIALS_PROBE_ID = 'credentials-check';

export class PlatformBAdapter implements VoicePlatformAdapter {
  readonly platform = 'platform_b' as const;
  private readonly http: PlatformHttp;
  private readonly listing: PlatformHttp;

  constructor(options: PlatformHttpOptions = {}) {
    this.http = new PlatformHttp(this.platform, options);
    this.listing = new PlatformHttp(this.platform, listingHttpOptions(options));
  }

  async verifyCredentials(connection: PlatformConnection): Promise<void> {
    this.succeed('agent', await this.http.send(connection, 'GET', '/assistant', { query: { externalId: CREDENTIALS_PROBE_ID } }));
  }

  async findAgentByExternalId(connection: PlatformConnection, externalId: string): Promise<PlatformAgentRef | undefined> {
    const answer = this.succeed('agent', await this.http.send(connection, 'GET', '/assistant', { query: { externalId } }));
    const found = platformBAgentFromSearch(answer.json, externalId);
    if (found === 'unreadable') throw this.http.unexpectedAnswer('the assistant search', answer);
    return found;
  }

  async createAgent(connection: PlatformConnection, spec: PlatformAgentSpec): Promise<PlatformAgentRef> {
    const answer = this.succeed('agent', await this.http.send(connection, 'POST', '/assistant', { body: platformBAssistantBody(spec) }));
    const ref = platformBAgentRef(answer.json);
    if (!ref) throw this.http.unexpectedAnswer('the assistant creation', answer);
    return ref;
  }

  async updateAgent(connection: PlatformConnection, agent: PlatformAgentTarget, changes: PlatformAgentChanges): Promise<void> {
    const body = platformBAssistantChanges(changes, agent.external_id);
    if (Object.keys(body).length === 0) return;
    this.succeed('agent', await this.http.send(connection, 'PATCH', `/assistant/${segment(agent.platform_agent_id)}`, { body }));
  }

  async deleteAgent(connection: PlatformConnection, platformAgentId: string): Promise<void> {
    const answer = await this.http.send(connection, 'DELETE', `/assistant/${segment(platformAgentId)}`);
    if (answer.status !== 404) this.succeed('agent', answer);
  }

  async acquireNumber(connection: PlatformConnection, request: AcquireNumberRequest): Promise<PlatformNumber> {
    const problem = platformBNumberRequestProblem(request);
    if (problem) throw this.http.failed(problem);
    const answer = this.succeed('acquire_number', await this.http.send(connection, 'POST', '/phone-number', { body: platformBNumberBody(request) }));
    const number = platformBNumberFromAnswer(answer.json, request);
    if (!number) throw this.http.unexpectedAnswer('the phone number request', answer);
    return number;
  }

  async bindNumber(connection: PlatformConnection, number: PlatformNumberRef, platformAgentId: string | null): Promise<void> {
    const path = `/phone-number/${segment(number.platform_number_id)}`;
    this.succeed('number', await this.http.send(connection, 'PATCH', path, { body: { assistantId: platformAgentId } }));
  }

  async releaseNumber(connection: PlatformConnection, number: PlatformNumberRef): Promise<void> {
    const answer = await this.http.send(connection, 'DELETE', `/phone-number/${segment(number.platform_number_id)}`);
    if (answer.status !== 404) this.succeed('number', answer);
  }

  async listAgents(connection: PlatformConnection): Promise<ListedPlatformAgent[]> {
    return this.list(connection, '/assistant', 'assistant', platformBListedAgent, (agent) => agent.platform_agent_id);
  }

  async listNumbers(connection: PlatformConnection): Promise<ListedPlatformNumber[]> {
    return this.list(connection, '/phone-number', 'phone number', platformBListedNumber, (number) => number.platform_number_id);
  }

  storedFields(spec: PlatformAgentSpec): StoredAgentFields {
    return platformBStoredFields(spec);
  }

  private list<T>(
    connection: PlatformConnection,
    path: string,
    what: string,
    read: (item: unknown) => T | undefined,
    cursorOf: (item: T) => string,
  ): Promise<T[]> {
    return readAllPages(this.listing, what, async (cursor) => {
      const query: Record<string, string> = { limit: String(LISTING_PAGE_SIZE), ...(cursor === undefined ? {} : { after: cursor }) };
      const answer = this.succeed('agent', await this.listing.send(connection, 'GET', path, { query }));
      const page = platformBPage(answer.json, LISTING_PAGE_SIZE, read, cursorOf);
      if (page === 'unreadable') throw this.listing.unexpectedAnswer(`the ${what} listing`, answer);
      return page;
    });
  }

  private succeed(operation: PlatformBOperation, answer: PlatformAnswer): PlatformAnswer {
    if (isSuccess(answer)) return answer;
    throw this.http.failed(platformBFailure(operation, answer));
  }
}
