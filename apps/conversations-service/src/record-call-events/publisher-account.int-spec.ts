import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { accountCallEventSubject, CALL_EVENTS_STREAM, callEventSubject, namespacedStream, namespacedSubject, type CallEvent } from '@voice/contracts';
import { callEvents, startHarness, type Harness } from '../testing/harness.js';
import { CALL_EVENTS_DURABLE } from './call-events.consumer.js';

jest.setTimeout(60_000);

/** Call events on `call_events.<account_id>.<type>`: the account the subject names must own the event's agent. */
describe.each([{ requireAccountSubject: false }, { requireAccountSubject: true }])('call events on account subjects (%o)', ({ requireAccountSubject }) => {
  let h: Harness;
  const account = `acct_${randomUUID().replace(/-/g, '')}`;
  const otherAccount = `acct_${randomUUID().replace(/-/g, '')}`;
  const agent = `agt_${randomUUID()}`;
  const otherAgent = `agt_${randomUUID()}`;

  beforeAll(async () => {
    h = await startHarness({ requireAccountSubject });
    await h.publishKnownAgent({ agent_id: agent, account_id: account });
    await h.publishKnownAgent({ agent_id: otherAgent, account_id: otherAccount });
  });
  afterAll(async () => {
    await h?.close();
  });

  const publishAs = (accountId: string | undefined, events: CallEvent[]) =>
    Promise.all(events.map((e) => h.js.publish(namespacedSubject(h.namespace, accountId ? accountCallEventSubject(accountId, e.type) : callEventSubject(e.type)), JSON.stringify(e), { msgID: `${accountId}:${e.id}` })));
  const settled = () =>
    h.eventually(async () => {
      const info = await (await jetstreamManager(h.nc)).consumers.info(namespacedStream(h.namespace, CALL_EVENTS_STREAM), CALL_EVENTS_DURABLE);
      expect(info.num_ack_pending + info.num_pending).toBe(0);
    });

  it('records an event of one of the account\'s agents', async () => {
    const c = callEvents(`conv-${randomUUID()}`, agent);
    await publishAs(account, [c.started()]);
    await h.eventually(async () => expect((await h.list(account, {})).items.map((i) => i.id)).toContain(c.started().conversation_id));
  });

  it('refuses an event whose agent belongs to another account than its subject names', async () => {
    const c = callEvents(`conv-${randomUUID()}`, otherAgent);
    await publishAs(account, [c.started()]);
    await settled();
    expect((await h.list(otherAccount, {})).items).toEqual([]);
    expect((await h.list(account, {})).items.map((i) => i.id)).not.toContain(c.started().conversation_id);
  });

  it('checks a parked event against its agent\'s account once the agent is known', async () => {
    const lateAgent = `agt_${randomUUID()}`;
    const c = callEvents(`conv-${randomUUID()}`, lateAgent);
    await publishAs(account, [c.started()]);
    await h.eventually(async () => {
      const { rows } = await h.db.query(`SELECT publisher_account_id FROM conversations.parked_call_events WHERE agent_id = $1`, [lateAgent]);
      expect(rows).toEqual([{ publisher_account_id: account }]);
    });
    await h.publishKnownAgent({ agent_id: lateAgent, account_id: otherAccount });
    await h.eventually(async () => {
      const { rows } = await h.db.query(`SELECT count(*)::int AS n FROM conversations.parked_call_events WHERE agent_id = $1`, [lateAgent]);
      expect(rows[0].n).toBe(0);
    });
    expect((await h.list(otherAccount, {})).items).toEqual([]);
  });

  it(requireAccountSubject ? 'refuses the unscoped subject' : 'still accepts the unscoped subject', async () => {
    const c = callEvents(`conv-${randomUUID()}`, agent);
    await publishAs(undefined, [c.started()]);
    await settled();
    const ids = (await h.list(account, {})).items.map((i) => i.id);
    if (requireAccountSubject) expect(ids).not.toContain(c.started().conversation_id);
    else expect(ids).toContain(c.started().conversation_id);
  });
});
