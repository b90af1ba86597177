import { Injectable } from '@nestjs/common';
import type { AuditAction } from '@voice/contracts';
import type { Request } from 'express';
import type { QueryRunner } from 'typeorm';
import { clientAddressOf, requestIdOf, type GatewayRequest } from '../http/gateway-request.js';
import { AuditEventsStore } from './audit-events.store.js';

/**
 * The audit entries of changes the gateway answers itself or that no service records as an event (API keys,
 * integrations, webhook endpoints, data requests): written once the change succeeded, with the request's key (or
 * the admin token), request id and client address. Agent changes are not written here: they come from the
 * agents' own events (AgentEventsAudit).
 */
@Injectable()
export class AuditLog {
  constructor(private readonly store: AuditEventsStore) {}

  /**
   * `accountId` for admin routes, which have no caller account; `runner` to write within the change's own
   * transaction.
   */
  async record(
    req: Request,
    change: { action: AuditAction; targetId: string | null; changedFields?: string[]; accountId?: string },
    runner?: QueryRunner,
  ): Promise<void> {
    const caller = (req as GatewayRequest).caller;
    const accountId = change.accountId ?? caller?.account.id;
    // Every audited route is authenticated; an entry without an account would be a wiring bug.
    if (!accountId) throw new Error('audited change has no account');
    await this.store.append(
      [
        {
          account_id: accountId,
          action: change.action,
          actor: caller ? { type: 'api_key', key_id: caller.key_id } : { type: 'admin_token' },
          target_id: change.targetId,
          changed_fields: change.changedFields ?? null,
          request_id: requestIdOf(req),
          client_address: clientAddressOf(req) ?? null,
        },
      ],
      runner,
    );
  }
}
