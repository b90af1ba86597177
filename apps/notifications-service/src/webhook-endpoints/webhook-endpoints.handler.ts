import { Inject, Injectable } from '@nestjs/common';
import type { AccountContext, CreatedWebhookEndpoint, PageResult, RawQuery, WebhookEndpointView } from '@voice/contracts';
import { checkOutboundUrl, fail, secretHint } from '@voice/service-kit';
import { randomBytes } from 'node:crypto';
import {
  endpointQuotaProblem, ENDPOINT_ID, formatSigningSecret, parseEndpointBody, parseEndpointListQuery, refusedAddress, type EndpointChanges,
} from './webhook-endpoint.rules.js';
import { boundedResolver } from '../deliver-events/webhook-sender.js';
import { ENDPOINTS_SETTINGS, previousSecretContext, secretContext, type EndpointsSettings } from './webhook-endpoints.settings.js';
import { toEndpointView, WebhookEndpointsStore, type EndpointRecord } from './webhook-endpoints.store.js';

/** How long a create or an update waits for DNS; no answer in time is taken as "does not resolve yet". */
const RESOLVE_AT_INPUT_MS = 3_000;

const notFound = (): never => fail('not_found', 'No webhook endpoint with this id.', { field: 'id' });

/** The endpoints resource: validate, then load, decide and write in one transaction. */
@Injectable()
export class WebhookEndpointsHandler {
  constructor(
    private readonly store: WebhookEndpointsStore,
    @Inject(ENDPOINTS_SETTINGS) private readonly settings: EndpointsSettings,
  ) {}

  async create(account: AccountContext, body: unknown): Promise<CreatedWebhookEndpoint> {
    const fields = this.parse(body, 'create');
    await this.resolvable(fields.url!);
    const id = `we_${randomBytes(12).toString('hex')}`;
    const secret = formatSigningSecret(randomBytes(32));
    const now = new Date();
    const record: EndpointRecord = {
      id, account_id: account.id, url: fields.url!, description: fields.description ?? null, event_types: fields.event_types ?? null,
      agent_ids: fields.agent_ids ?? null, enabled: fields.enabled ?? true, disabled_reason: fields.enabled === false ? 'disabled by the account' : null,
      secret_sealed: this.settings.secretBox.seal(secret, secretContext(id)), secret_hint: secretHint(secret), created_at: now, updated_at: now,
    };
    await this.store.transaction(account.id, async (em) => {
      const quota = endpointQuotaProblem(await this.store.count(em, account.id));
      if (quota) fail(quota.code, quota.message, quota);
      await this.store.insert(em, record);
    });
    return { ...toEndpointView(record), secret };
  }

  async list(accountId: string, query: RawQuery): Promise<PageResult<WebhookEndpointView>> {
    const params = parseEndpointListQuery(query);
    if ('problem' in params) fail(params.problem.code, params.problem.message, params.problem);
    const { rows, total } = await this.store.page(accountId, params.page, params.per_page);
    return { items: rows.map(toEndpointView), total, page: params.page, per_page: params.per_page };
  }

  async get(accountId: string, id: string): Promise<WebhookEndpointView> {
    if (!ENDPOINT_ID.test(id)) notFound();
    return toEndpointView((await this.store.find(accountId, id)) ?? notFound());
  }

  async secret(accountId: string, id: string): Promise<{ secret: string }> {
    if (!ENDPOINT_ID.test(id)) notFound();
    const record = (await this.store.find(accountId, id)) ?? notFound();
    return { secret: this.settings.secretBox.open(record.secret_sealed, secretContext(id)) };
  }

  /** A new secret now; the replaced one keeps signing for the overlap (24 h), so receivers can switch without a gap. */
  async rotate(accountId: string, id: string): Promise<{ secret: string }> {
    if (!ENDPOINT_ID.test(id)) notFound();
    const box = this.settings.secretBox;
    const secret = formatSigningSecret(randomBytes(32));
    await this.store.transaction(accountId, async (em) => {
      const current = (await this.store.find(accountId, id, em)) ?? notFound();
      const previous = box.open(current.secret_sealed, secretContext(id));
      await this.store.rotate(
        em, accountId, id,
        { sealed: box.seal(secret, secretContext(id)), hint: secretHint(secret) },
        { sealed: box.seal(previous, previousSecretContext(id)), expiresAt: new Date(Date.now() + this.settings.secretOverlapMs) },
      );
    });
    return { secret };
  }

  async update(accountId: string, id: string, body: unknown): Promise<WebhookEndpointView> {
    if (!ENDPOINT_ID.test(id)) notFound();
    const changes = this.parse(body, 'update');
    if (changes.url !== undefined) await this.resolvable(changes.url);
    return this.store.transaction(accountId, async (em) => {
      const current = (await this.store.find(accountId, id, em)) ?? notFound();
      const next: EndpointRecord & { succeeded: string; failed: string } = { ...current, ...changes, updated_at: new Date() };
      if (changes.enabled === true) next.disabled_reason = null;
      if (changes.enabled === false && current.enabled) next.disabled_reason = 'disabled by the account';
      await this.store.update(em, next);
      return toEndpointView(next);
    });
  }

  async remove(accountId: string, id: string): Promise<void> {
    if (!ENDPOINT_ID.test(id) || !(await this.store.delete(accountId, id))) notFound();
  }

  private parse(body: unknown, mode: 'create' | 'update'): EndpointChanges {
    const parsed = parseEndpointBody(body, this.settings, mode);
    if ('problem' in parsed) fail(parsed.problem.code, parsed.problem.message, parsed.problem);
    return parsed.fields;
  }

  /**
   * A host that resolves must resolve to allowed addresses only. One that does not resolve yet is taken (a
   * receiver is often set up after its endpoint): every delivery attempt resolves and checks it again.
   */
  private async resolvable(url: string): Promise<void> {
    const checked = await checkOutboundUrl(url, { allowPrivate: true }, boundedResolver(RESOLVE_AT_INPUT_MS));
    if (!checked.ok && checked.kind === 'unresolvable') return;
    if (!checked.ok) fail('invalid_parameter', `url ${checked.problem}.`, { field: 'url' });
    for (const { address } of checked.addresses) {
      const refusal = refusedAddress(address, this.settings);
      if (refusal) fail('invalid_parameter', `url must not point at an internal address: ${refusal}.`, { field: 'url' });
    }
  }
}

