import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ConversationChange, ConversationListItem } from '@voice/contracts';
import { openDatabase } from '@voice/service-kit';
import { createTestDatabase, type TestDatabase } from '@voice/testing';
import type { DataSource } from 'typeorm';
import { NOTIFICATIONS_SCHEMA, notificationsMigrations } from '../database/notifications-database.js';
import { RecordEventsStore } from '../record-events/record-events.store.js';
import { eraseConversationEvents } from './erase-conversations.consumer.js';

const change = (accountId: string, id: string, status: ConversationListItem['status'], version: number): ConversationChange => ({
  type: version === 1 ? 'conversation.created' : 'conversation.updated', account_id: accountId, version,
  conversation: { id, agent_id: 'agt_1', agent_name: 'A', caller_number: '+14155550123', status, start_time: null, end_time: null, duration: 0, sentiment: null,
    outcome: null, topics: [], has_recording: false, has_transcript: false, summary: null, created_at: '2026-01-01T00:00:00.000Z' },
});

describe('erasing conversations from the outbound events (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let store: RecordEventsStore;

  beforeAll(async () => {
    db = await createTestDatabase('notiferase');
    dataSource = await openDatabase({ url: db.url, schema: NOTIFICATIONS_SCHEMA, migrations: notificationsMigrations });
    store = new RecordEventsStore(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('deletes the events of erased conversations with their deliveries and attempts; a change consumed later records nothing', async () => {
    await dataSource.query(
      `INSERT INTO notifications.endpoints (id, account_id, url, enabled, secret_sealed, secret_hint, created_at, updated_at)
       VALUES ('we_000000000000000000000001', 'acct_a', 'http://127.0.0.1:9/', true, 'sealed', 'hint', now(), now())`,
    );
    await store.recordConversationChanges([change('acct_a', 'conv_1', 'in_progress', 1), change('acct_a', 'conv_2', 'completed', 1), change('acct_b', 'conv_1', 'in_progress', 1)], 0);
    await dataSource.query(`UPDATE notifications.deliveries SET attempt_log = jsonb_build_array(jsonb_build_object(
                              'attempted_at', '2026-01-01T00:00:00.000Z', 'status_code', 500, 'error', null, 'duration_ms', 5, 'response_body', 'no'))`);
    const rows = (sql: string) => dataSource.query(sql).then((r: Array<{ n: number }>) => r[0].n);

    expect(await eraseConversationEvents(dataSource, [
      { notice_id: 'erasure:1', account_id: 'acct_a', conversation_ids: ['conv_1'], reason: 'erasure_request', erased_at: '2026-01-02T00:00:00.000Z' },
    ])).toBe(1);
    expect(await dataSource.query(`SELECT account_id, conversation_id FROM notifications.events ORDER BY account_id, conversation_id`)).toEqual([
      { account_id: 'acct_a', conversation_id: 'conv_2' }, { account_id: 'acct_b', conversation_id: 'conv_1' },
    ]);
    expect(await rows(`SELECT count(*)::int AS n FROM notifications.deliveries d JOIN notifications.events e ON e.id = d.event_id WHERE e.conversation_id = 'conv_1' AND e.account_id = 'acct_a'`)).toBe(0);
    expect(await rows('SELECT sum(jsonb_array_length(attempt_log))::int AS n FROM notifications.deliveries')).toBe(1);

    // A change of the erased conversation published before the erasure, consumed after it.
    expect(await store.recordConversationChanges([change('acct_a', 'conv_1', 'completed', 2)], 0)).toBe(0);
    expect(await rows(`SELECT count(*)::int AS n FROM notifications.events WHERE account_id = 'acct_a' AND conversation_id = 'conv_1'`)).toBe(0);
  });
});
