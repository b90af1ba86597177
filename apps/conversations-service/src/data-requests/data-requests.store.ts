/** The SQL of data requests (conversations.data_requests, access_exports): creating, reading, claiming and settling them. */
import { ACCESS_EXPORT_TTL_MS, type ConversationDetail, type DataRequestType } from '@voice/contracts';
import { inTransaction } from '@voice/service-kit';
import { randomBytes } from 'node:crypto';
import type { DataSource, QueryRunner } from 'typeorm';
import type { StoredConversation } from '../conversation/conversation.store.js';
import { callerConversations } from '../erase-conversations/erase-conversations.store.js';
import { maskCallerNumber } from '@voice/contracts';
import type { DataRequestRow, NewDataRequest } from './data-request.rules.js';

export const newDataRequestId = () => `dr_${randomBytes(12).toString('hex')}`;

const VIEW_COLUMNS = 'id, account_id, type, caller_number_masked, status, conversations_found, conversations_done, created_at, completed_at, download_expires_at';

export async function insertDataRequest(db: DataSource, accountId: string, request: NewDataRequest): Promise<DataRequestRow> {
  const [row] = await db.query(
    `INSERT INTO conversations.data_requests (id, account_id, type, caller_number, caller_number_masked, status)
     VALUES ($1, $2, $3, $4, $5, 'pending') RETURNING ${VIEW_COLUMNS}`,
    [newDataRequestId(), accountId, request.type, request.caller_number, maskCallerNumber(request.caller_number)],
  );
  return row;
}

/** Newest first. */
export async function listDataRequests(db: DataSource, accountId: string, page: number, perPage: number): Promise<{ items: DataRequestRow[]; total: number }> {
  const items: DataRequestRow[] = await db.query(
    `SELECT ${VIEW_COLUMNS} FROM conversations.data_requests WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
    [accountId, perPage, (page - 1) * perPage],
  );
  const [{ total }] = await db.query('SELECT count(*)::int AS total FROM conversations.data_requests WHERE account_id = $1', [accountId]);
  return { items, total };
}

/** The account's request, or undefined (also another account's: existence is not revealed). */
export async function findDataRequest(db: DataSource, accountId: string, id: string): Promise<DataRequestRow | undefined> {
  const [row] = await db.query(`SELECT ${VIEW_COLUMNS} FROM conversations.data_requests WHERE account_id = $1 AND id = $2`, [accountId, id]);
  return row;
}

/** A request a worker holds, with the caller it is about. */
export interface ClaimedRequest {
  id: string;
  account_id: string;
  type: DataRequestType;
  caller_number: string;
  conversations_done: number;
  export_cursor: string | null;
}

/**
 * The oldest open request nobody holds (never held, or its holder's lease ran out: the process died or stalled),
 * now held by `worker` for `leaseMs`. SKIP LOCKED: replicas claiming at once take different requests.
 */
export async function claimNextDataRequest(db: DataSource, worker: string, leaseMs: number): Promise<ClaimedRequest | undefined> {
  const [rows]: [ClaimedRequest[], number] = await db.query(
    `UPDATE conversations.data_requests r
        SET status = 'running', claimed_by = $1, claimed_until = clock_timestamp() + $2 * interval '1 millisecond'
      WHERE r.id = (SELECT id FROM conversations.data_requests
                     WHERE status IN ('pending', 'running') AND (claimed_until IS NULL OR claimed_until < clock_timestamp())
                     ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING r.id, r.account_id, r.type, r.caller_number, r.conversations_done, r.export_cursor`,
    [worker, leaseMs],
  );
  return rows[0];
}

/** Renews the lease in a step's transaction; false when another worker took the request over (the step must not write). */
export async function holdLease(runner: QueryRunner, id: string, worker: string, leaseMs: number): Promise<boolean> {
  const [, count]: [unknown[], number] = await runner.query(
    `UPDATE conversations.data_requests SET claimed_until = clock_timestamp() + $3 * interval '1 millisecond'
      WHERE id = $1 AND claimed_by = $2 AND status = 'running'`,
    [id, worker, leaseMs],
  );
  return count === 1;
}

/** A step's progress: `done` more conversations, `found` in all so far, where an access export goes on from. */
export async function recordProgress(runner: QueryRunner, id: string, progress: { done: number; found: number; cursor?: string }): Promise<void> {
  await runner.query(
    `UPDATE conversations.data_requests
        SET conversations_done = conversations_done + $2, conversations_found = greatest(conversations_found, $3, conversations_done + $2),
            export_cursor = coalesce($4, export_cursor)
      WHERE id = $1`,
    [id, progress.done, progress.found, progress.cursor ?? null],
  );
}

/** Completed: the caller's number is forgotten (only its masked form stays); an access document is served until its expiry. */
export async function completeDataRequest(runner: QueryRunner, id: string, type: DataRequestType): Promise<void> {
  await runner.query(
    `UPDATE conversations.data_requests
        SET status = 'completed', completed_at = now(),
            download_expires_at = CASE WHEN $2 = 'access' THEN now() + $3 * interval '1 millisecond' END, caller_number = NULL, claimed_by = NULL, claimed_until = NULL,
            export_cursor = NULL, conversations_found = greatest(conversations_found, conversations_done)
      WHERE id = $1`,
    [id, type, ACCESS_EXPORT_TTL_MS],
  );
  await recordSettlement(runner, id);
}

/** The settlement's event, in the settling transaction (the outbox of DATA_REQUEST_EVENTS). */
async function recordSettlement(runner: Pick<QueryRunner, 'query'>, id: string): Promise<void> {
  await runner.query(
    `INSERT INTO conversations.data_request_events (account_id, request_id, request_type, status, conversations_done, settled_at)
     SELECT account_id, id, type, status, conversations_done, completed_at FROM conversations.data_requests WHERE id = $1`,
    [id],
  );
}

export async function failDataRequest(db: DataSource, id: string, worker: string, failure: string): Promise<void> {
  await inTransaction(db, async (runner) => {
    const [, count]: [unknown[], number] = await runner.query(
      `UPDATE conversations.data_requests
          SET status = 'failed', failure = $3, completed_at = now(), caller_number = NULL, claimed_by = NULL, claimed_until = NULL
        WHERE id = $1 AND claimed_by = $2`,
      [id, worker, failure],
    );
    if (count === 0) return;
    await runner.query('DELETE FROM conversations.access_exports WHERE request_id = $1', [id]);
    await recordSettlement(runner, id);
  });
}

export async function insertExportDocuments(runner: QueryRunner, requestId: string, accountId: string, documents: ReadonlyArray<{ id: string; document: unknown }>): Promise<void> {
  if (documents.length === 0) return;
  await runner.query(
    `INSERT INTO conversations.access_exports (request_id, account_id, conversation_id, document)
     SELECT $1, $2, d.id, d.document FROM unnest($3::text[], $4::jsonb[]) AS d(id, document)
     ON CONFLICT (request_id, conversation_id) DO UPDATE SET document = EXCLUDED.document`,
    [requestId, accountId, documents.map((d) => d.id), documents.map((d) => JSON.stringify(d.document))],
  );
}

/** The request's documents, in conversation id order. */
export async function readExportDocuments(db: DataSource, requestId: string): Promise<ConversationDetail[]> {
  const rows: Array<{ document: ConversationDetail }> = await db.query(
    'SELECT document FROM conversations.access_exports WHERE request_id = $1 ORDER BY conversation_id',
    [requestId],
  );
  return rows.map((r) => r.document);
}

/** Deletes the documents whose 24 hours are over; resolves how many. */
export async function deleteExpiredExports(db: DataSource): Promise<number> {
  const [, count]: [unknown[], number] = await db.query(
    `DELETE FROM conversations.access_exports e USING conversations.data_requests r
      WHERE r.id = e.request_id AND r.download_expires_at <= now()`,
  );
  return count;
}

/** Up to `limit` of the caller's conversations after `after` (id order), as the detail reads them. */
export async function conversationsOfCallerAfter(
  runner: QueryRunner, accountId: string, callerNumber: string, after: string, limit: number,
): Promise<Array<StoredConversation & { id: string }>> {
  const { where, params } = callerConversations(accountId, callerNumber, after);
  return runner.query(
    `SELECT c.id, c.detail AS state, a.name AS agent_name, c.voice_platform, c.created_at, c.updated_at
       FROM conversations.conversations c LEFT JOIN conversations.agents a ON a.agent_id = c.agent_id
      WHERE ${where}
      ORDER BY c.id LIMIT ${Number(limit)}`,
    params,
  );
}

/** How many of its conversations a request has done. */
export async function conversationsDone(runner: QueryRunner, id: string): Promise<number> {
  const [row]: Array<{ done: number }> = await runner.query('SELECT conversations_done AS done FROM conversations.data_requests WHERE id = $1', [id]);
  return row.done;
}
