/** platform_a behind the VoicePlatformAdapter port: the HTTP calls; every mapping lives in platform-a.mapping.ts. */
import {
  platformAAgentBody, platformAAgentChanges, platformAAgentFromSearch, platformAAgentRef, platformAFailure, platformANumberBody,
  platformAListedAgent, platformAListedNumber, platformANumberFromAnswer, platformANumberOperation, platformAPage, platformAStoredFields,
  type PlatformAOperation,
} from './platform-a.mapping.js';
import {
  isSuccess, LISTING_PAGE_SIZE, listingHttpOptions, PlatformHttp, readAllPages, segment, type PlatformAnswer, type PlatformHttpOptions,
} from './platform-http.js';
import type {
  AcquireNumberRequest, ListedPlatformAgent, ListedPlatformNumber, PlatformAgentChanges, PlatformAgentRef, PlatformAgentSpec, PlatformAgentTarget, PlatformConnection,
  PlatformNumber, PlatformNumberRef, StoredAgentFields, VoicePlatformAdapter,
} from './voice-platform.port.js';

/** An external id no agent of ours has: the credentials check searches for it and expects an empty list. */
const CREDENTIALS_PROBE_ID = 'credentials-check';

export class PlatformAAdapter implements VoicePlatformAdapter {
  readonly platform = 'platform_a' as const;
  private readonly http: PlatformHttp;
  private readonly listing: PlatformHttp;

  constructor(options: PlatformHttpOptions = {}) {
    this.http = new PlatformHttp(this.platform, options);
    this.listing = new PlatformHttp(this.platform, listingHttpOptions(options));
  }

  async verifyCredentials(connection: PlatformConnection): Promise<void> {
    this.succeed('agent', await this.http.send(connection, 'GET', '/v2/agents', { query: { 'metadata.external_id': CREDENTIALS_PROBE_ID } }));
  }

  async findAgentByExternalId(connection: PlatformConnection, externalId: string): Promise<PlatformAgentRef | undefined> {
    const answer = this.succeed('agent', await this.http.send(connection, 'GET', '/v2/agents', { query: { 'metadata.external_id': externalId } }));
    const found = platformAAgentFromSearch(answer.json, externalId);
    if (found === 'unreadable') throw this.http.unexpectedAnswer('the agent search', answer);
    return found;
  }

  async createAgent(connection: PlatformConnection, spec: PlatformAgentSpec): Promise<PlatformAgentRef> {
    const answer = this.succeed('agent', await this.http.send(connection, 'POST', '/v2/agents', { body: platformAAgentBody(spec) }));
    const ref = platformAAgentRef(answer.json);
    if (!ref) throw this.http.unexpectedAnswer('the agent creation', answer);
    return ref;
  }

  async updateAgent(connection: PlatformConnection, agent: PlatformAgentTarget, changes: PlatformAgentChanges): Promise<void> {
    const body = platformAAgentChanges(changes);
    if (Object.keys(body).length === 0) return;
    this.succeed('agent', await this.http.send(connection, 'PATCH', `/v2/agents/${segment(agent.platform_agent_id)}`, { body }));
  }

  async deleteAgent(connection: PlatformConnection, platformAgentId: string): Promise<void> {
    const answer = await this.http.send(connection, 'DELETE', `/v2/agents/${segment(platformAgentId)}`);
    if (answer.status !== 404) this.succeed('agent', answer);
  }

  async acquireNumber(connection: PlatformConnection, request: AcquireNumberRequest): Promise<PlatformNumber> {
    const answer = this.succeed(platformANumberOperation(request), await this.http.send(connection, 'POST', '/v2/phone-numbers', { body: platformANumberBody(request) }));
    const number = platformANumberFromAnswer(answer.json, request);
    if (!number) throw this.http.unexpectedAnswer('the phone number request', answer);
    return number;
  }

  async bindNumber(connection: PlatformConnection, number: PlatformNumberRef, platformAgentId: string | null): Promise<void> {
    const path = `/v2/phone-numbers/${segment(number.platform_number_id)}`;
    this.succeed('number', await this.http.send(connection, 'PATCH', path, { body: { inbound_agent_id: platformAgentId } }));
  }

  async releaseNumber(connection: PlatformConnection, number: PlatformNumberRef): Promise<void> {
    const answer = await this.http.send(connection, 'DELETE', `/v2/phone-numbers/${segment(number.platform_number_id)}`);
    if (answer.status !== 404) this.succeed('number', answer);
  }

  async listAgents(connection: PlatformConnection): Promise<ListedPlatformAgent[]> {
    return this.list(connection, '/v2/agents', 'agent', platformAListedAgent);
  }

  async listNumbers(connection: PlatformConnection): Promise<ListedPlatformNumber[]> {
    return this.list(connection, '/v2/phone-numbers', 'phone number', platformAListedNumber);
  }

  storedFields(spec: PlatformAgentSpec): StoredAgentFields {
    return platformAStoredFields(spec);
  }

  private list<T>(connection: PlatformConnection, path: string, what: string, read: (item: unknown) => T | undefined): Promise<T[]> {
    return readAllPages(this.listing, what, async (cursor) => {
      const query: Record<string, string> = { limit: String(LISTING_PAGE_SIZE), ...(cursor === undefined ? {} : { pagination_key: cursor }) };
      const answer = this.succeed('agent', await this.listing.send(connection, 'GET', path, { query }));
      const page = platformAPage(answer.json, read);
      if (page === 'unreadable') throw this.listing.unexpectedAnswer(`the ${what} listing`, answer);
      return page;
    });
  }

  private succeed(operation: PlatformAOperation, answer: PlatformAnswer): PlatformAnswer {
    if (isSuccess(answer)) return answer;
    throw this.http.failed(platformAFailure(operation, answer));
  }
}
