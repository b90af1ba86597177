import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { callEvents, startHarness, type Harness } from '../testing/harness.js';

// Real PostgreSQL and NATS, on a machine shared with other suites: generous, not tight, timeouts.
jest.setTimeout(60_000);

describe('agent knowledge from AGENT_EVENTS', () => {
  let h: Harness;
  const account = `acc_${randomUUID()}`;
  const agent = `agt_${randomUUID()}`;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  const known = async () => (await h.db.query(`SELECT name, version, recording_enabled FROM conversations.agents WHERE agent_id = $1`, [agent])).rows[0];

  it('a rename shows in agent_name of existing conversations; an older version arriving late changes nothing', async () => {
    await h.publishAgent({ agent_id: agent, account_id: account, name: 'Reception' }, 1);
    const c = callEvents(`conv-${randomUUID()}`, agent);
    const started = c.started();
    await h.publishCallEvents([started]);
    await h.eventually(async () => expect((await h.list(account, {})).items[0]?.agent_name).toBe('Reception'));

    await h.publishAgent({ agent_id: agent, account_id: account, name: 'Front Desk', voice_platform: 'platform_b' }, 3, 'AgentUpdated');
    await h.eventually(async () => expect((await h.list(account, {})).items[0]?.agent_name).toBe('Front Desk'));
    // The platform is the one that handled the call: switching the agent's platform does not rewrite history.
    expect((await h.get(account, started.conversation_id)).technical.voice_platform).toBe('platform_a');
    const later = callEvents(`conv-${randomUUID()}`, agent).started();
    await h.publishCallEvents([later]);
    await h.eventually(async () => expect((await h.get(account, later.conversation_id)).technical.voice_platform).toBe('platform_b'));
    expect((await h.get(account, started.conversation_id)).technical.voice_platform).toBe('platform_a');

    await h.publishAgent({ agent_id: agent, account_id: account, name: 'Stale Name', recording_enabled: false }, 2, 'AgentUpdated');
    // A later event is the marker that the stale one was consumed.
    const marker = `agt_${randomUUID()}`;
    await h.publishAgent({ agent_id: marker, account_id: account }, 1);
    await h.eventually(async () => expect((await h.db.query(`SELECT 1 FROM conversations.agents WHERE agent_id = $1`, [marker])).rowCount).toBe(1));
    expect(await known()).toEqual({ name: 'Front Desk', version: 3, recording_enabled: true });
  });

  it('keeps each agent’s retention limits for the retention sweep: null (keep) for events from before the setting', async () => {
    const limited = `agt_${randomUUID()}`;
    const older = `agt_${randomUUID()}`;
    const retention = async (id: string) =>
      (await h.db.query(`SELECT retention_conversations_days, retention_recordings_days FROM conversations.agents WHERE agent_id = $1`, [id])).rows[0];
    await h.publishKnownAgent({ agent_id: limited, account_id: account, retention: { conversations_days: 365, recordings_days: 30 } });
    await h.publishKnownAgent({ agent_id: older, account_id: account });
    expect(await retention(limited)).toEqual({ retention_conversations_days: 365, retention_recordings_days: 30 });
    expect(await retention(older)).toEqual({ retention_conversations_days: null, retention_recordings_days: null });

    await h.publishKnownAgent({ agent_id: limited, account_id: account, retention: { conversations_days: null, recordings_days: 7 } }, 2, 'AgentUpdated');
    expect(await retention(limited)).toEqual({ retention_conversations_days: null, retention_recordings_days: 7 });
  });

  it('a failed sync travels on AGENT_EVENTS too, carrying the agent: acked, and it changes no agent', async () => {
    const synced = `agt_${randomUUID()}`;
    await h.publishAgent({ agent_id: synced, account_id: account, name: 'Synced' }, 1);
    // A notice carries the agent at the failed version: it must not pass for a newer state of the agent.
    await h.publishAgent({ agent_id: synced, account_id: account, name: 'Not a change', status: 'paused' }, 7, 'AgentSyncFailed' as never);
    const marker = `agt_${randomUUID()}`;
    await h.publishAgent({ agent_id: marker, account_id: account }, 1);
    await h.eventually(async () => expect((await h.db.query(`SELECT 1 FROM conversations.agents WHERE agent_id = $1`, [marker])).rowCount).toBe(1));
    const row = (await h.db.query(`SELECT name, version, status FROM conversations.agents WHERE agent_id = $1`, [synced])).rows[0];
    expect(row).toEqual({ name: 'Synced', version: 1, status: 'active' });
    expect((await h.db.query(`SELECT version FROM conversations.agent_status_history WHERE agent_id = $1`, [synced])).rows).toEqual([{ version: 1 }]);
  });

  it('a deleted agent keeps its conversations readable', async () => {
    await h.publishAgent({ agent_id: agent, account_id: account, name: 'Front Desk', status: 'deleted' }, 4, 'AgentDeleted');
    await h.eventually(async () => expect((await known()).version).toBe(4));
    const page = await h.list(account, {});
    expect(page.total).toBe(2);
    expect(page.items.map((i) => i.agent_name)).toEqual(['Front Desk', 'Front Desk']);
  });
});
