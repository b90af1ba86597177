import { Injectable } from '@nestjs/common';
import type { AuditAction } from '@voice/contracts';
import type { FastifyRequest } from 'fastify';
import type { QueryRunner } from 'typeorm';
import { clientAddressOf, requestIdOf, type GatewayRequest } from '../http/gateway-request.js';
import { AuditEventsStore } from './audit-events.store.js';

export interface AuditedChange {
  action: AuditAction;
  targetId: string | null;
  changedFields?: string[];
  /** For admin routes, which have no caller account. */
  accountId?: string;
  /** When the service that made the change says it happened; absent: now. */
  occurredAt?: string;
}

/**
 * The audit entries of changes the gateway answers itself or that no service records as an event (API keys,
 * integrations, webhook endpoints, data requests): written with the change when it is the gateway's own (keys), once
 * it succeeded otherwise, with the request's key (or the admin token), request id and client address. Agent changes are not written here: they come from the
 * agents' own events (AgentEventsAudit).
 */
@Injectable()
export class AuditLog {
  constructor(private readonly store: AuditEventsStore) {}

  /** A change to the gateway's own tables and its entry, in one transaction: neither is kept without the other. */
  async recordWith<T>(req: FastifyRequest, work: (runner: QueryRunner) => Promise<T>, changeOf: (result: T) => AuditedChange): Promise<T> {
    return this.store.transaction(async (runner) => {
      const result = await work(runner);
      await this.record(req, changeOf(result), runner);
      return result;
    });
  }

  /** The entry of a change that succeeded; `runner` to write it within the change's own transaction. */
  async record(req: FastifyRequest, change: AuditedChange, runner?: QueryRunner): Promise<void> {
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
          ...(change.occurredAt ? { occurred_at: change.occurredAt } : {}),
        },
      ],
      runner,
    );
  }
}
