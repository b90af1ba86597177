/**
 * Outbound conversation events under kill -9 of the service producing the change (conversations-service): 2,000
 * calls start (one call.started each on CALL_EVENTS) while conversations-service records them and
 * notifications-service turns their changes into webhooks for one endpoint on loopback; conversations-service is
 * killed with SIGKILL once a quarter of the calls is recorded, while the changes stream has been refusing messages
 * for 1.5 s (so committed changes wait for the bus), and restarted a second later with the stream open again. What must hold:
 * every call's conversation event reaches the endpoint at least once, correctly signed (0 lost: a change
 * committed before the kill is still published, from the outbox); duplicates are counted and printed.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DiscardPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import {
  agentEventSubject, callEventSubject, CONVERSATION_CHANGES_STREAM, namespacedStream, namespacedSubject, type AgentIntegrationEvent,
} from '@voice/contracts';
import type { ChildProcess } from 'node:child_process';
import { OutboundFixture } from './support/outbound-webhooks.js';

const CALLS = 2_000;
const ACCOUNT = 'acct_faultconversations0001';
const AGENT = 'agt_faultconversationsagent01';

describe('fault: kill -9 of conversations-service while its changes become webhooks', () => {
  /** Its endpoint counts deliveries per conversation (any conversation.* event of it). */
  let outbound: OutboundFixture;
  let conversations: ChildProcess | undefined;
  const startConversations = async () => (conversations = await outbound.startService('conversations-service', { CALL_EVENTS_ACK_WAIT_MS: '5000' }));

  beforeAll(async () => {
    outbound = await OutboundFixture.open('faultconv', ({ body, verified }) => {
      if (!verified) return undefined;
      const event = JSON.parse(body) as { type: string; data: { conversation?: { id: string } } };
      return event.type.startsWith('conversation.') ? event.data.conversation!.id : undefined;
    });
    await startConversations();
    await outbound.startService('notifications-service', { CALL_EVENTS_ACK_WAIT_MS: '5000' });
    await outbound.registerEndpoint(ACCOUNT);
    const agent: AgentIntegrationEvent = {
      id: 'fault-conversations-agent', type: 'AgentCreated', version: 1, occurred_at: new Date().toISOString(),
      agent: { agent_id: AGENT, account_id: ACCOUNT, name: 'Front Desk', voice_platform: 'platform_a', status: 'active', recording_enabled: true, transcription_enabled: true },
    };
    await jetstream(outbound.nc).publish(namespacedSubject(outbound.namespace, agentEventSubject('AgentCreated')), JSON.stringify(agent), { msgID: agent.id });
    for (const deadline = Date.now() + 30_000; ; ) {
      const { rows } = await outbound.db.query('SELECT 1 FROM conversations.agents WHERE agent_id = $1', [AGENT]);
      if (rows.length > 0) break;
      if (Date.now() > deadline) throw new Error('the agent never became known to conversations-service');
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 180_000);

  afterAll(async () => {
    await outbound?.close();
  });

  it('every call’s conversation event delivered at least once, signed; duplicates counted', async () => {
    const js = jetstream(outbound.nc);
    const subject = namespacedSubject(outbound.namespace, callEventSubject('call.started'));
    const start = Date.parse('2025-03-01T10:00:00.000Z');
    const publishing = (async () => {
      for (let i = 0; i < CALLS; i++) {
        const at = new Date(start + i * 1000).toISOString();
        const event = {
          id: `fault-call-started-${i}`, type: 'call.started', conversation_id: `conv-fault-${i}`, agent_id: AGENT, occurred_at: at,
          data: { caller_number: '+14155550123', start_time: at },
        };
        await js.publish(subject, JSON.stringify(event), { msgID: event.id });
      }
    })();

    const recordedCalls = async () => (await outbound.db.query('SELECT count(*)::int AS n FROM conversations.conversations')).rows[0].n as number;
    for (const deadline = Date.now() + 60_000; (await recordedCalls()) < CALLS / 4 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 10));
    // The changes stream stops taking messages for a while, so changes committed then are still waiting for the bus
    // when the kill comes (not only the few of the last milliseconds).
    const jsm = await jetstreamManager(outbound.nc);
    const changes = namespacedStream(outbound.namespace, CONVERSATION_CHANGES_STREAM);
    const { config, state } = await jsm.streams.info(changes);
    await jsm.streams.update(changes, { ...config, max_msgs: Math.max(1, state.messages), discard: DiscardPolicy.New });
    await new Promise((r) => setTimeout(r, 1_500));
    conversations!.kill('SIGKILL');
    await new Promise((r) => conversations!.once('exit', r));
    const killedAt = outbound.endpoint.seen.size;
    const recorded = await recordedCalls();
    await jsm.streams.update(changes, { ...config });
    await new Promise((r) => setTimeout(r, 1_000));
    await startConversations();
    await publishing;

    for (const deadline = Date.now() + 180_000; outbound.endpoint.seen.size < CALLS && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
    const duplicates = outbound.endpoint.received - outbound.endpoint.seen.size;
    console.log(
      `outbound events, kill -9 of conversations-service with ${recorded}/${CALLS} calls recorded and ${killedAt} delivered: ` +
        `${outbound.endpoint.seen.size} delivered, ${CALLS - outbound.endpoint.seen.size} lost, ${duplicates} duplicates, ${outbound.endpoint.badSignatures} bad signatures`,
    );
    expect({ lost: CALLS - outbound.endpoint.seen.size, badSignatures: outbound.endpoint.badSignatures }).toEqual({ lost: 0, badSignatures: 0 });
  }, 360_000);
});
