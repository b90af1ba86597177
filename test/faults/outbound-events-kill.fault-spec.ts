/**
 * Outbound events under kill -9 of notifications-service: 2,000 agent events reach AGENT_EVENTS (as the agents'
 * relay publishes them) while the service records and delivers them to one endpoint on loopback; the service is
 * killed with SIGKILL a quarter of the way and restarted a second later. What must hold: every event reaches the
 * endpoint at least once, correctly signed (0 lost); duplicates (the price of at least once) are counted and printed.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstream } from '@nats-io/jetstream';
import { AGENT_EVENTS_STREAM, AGENT_EVENTS_SUBJECT_ROOT, namespacedStream, namespacedSubject, type AgentIntegrationEvent } from '@voice/contracts';
import type { ChildProcess } from 'node:child_process';
import { OutboundFixture } from './support/outbound-webhooks.js';

const EVENTS = 2_000;
const ACCOUNT = 'acct_faultnotifications00001';

describe('fault: kill -9 of notifications-service mid-delivery', () => {
  let outbound: OutboundFixture;
  let service: ChildProcess | undefined;
  const start = async () => (service = await outbound.startService('notifications-service'));

  beforeAll(async () => {
    outbound = await OutboundFixture.open('faultnotif', ({ headers }) => String(headers['webhook-id']));
    await start();
    await outbound.registerEndpoint(ACCOUNT);
  }, 120_000);

  afterAll(async () => {
    await outbound?.close();
  });

  it('every event delivered at least once, signed; duplicates counted', async () => {
    const js = jetstream(outbound.nc);
    const subject = namespacedSubject(outbound.namespace, `${AGENT_EVENTS_SUBJECT_ROOT}.AgentCreated`);
    expect(namespacedStream(outbound.namespace, AGENT_EVENTS_STREAM)).toContain('AGENT_EVENTS');
    const publishing = (async () => {
      for (let i = 0; i < EVENTS; i++) {
        const event: AgentIntegrationEvent = {
          id: `fault-agent-event-${i}`, type: 'AgentCreated', version: 1, occurred_at: new Date().toISOString(),
          agent: { agent_id: `agt_${String(i).padStart(24, '0')}`, account_id: ACCOUNT, name: `Agent ${i}`, voice_platform: 'platform_a', status: 'active', recording_enabled: true, transcription_enabled: true },
        };
        await js.publish(subject, JSON.stringify(event), { msgID: event.id });
      }
    })();

    for (const deadline = Date.now() + 60_000; outbound.endpoint.seen.size < EVENTS / 4 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
    expect(outbound.endpoint.seen.size).toBeGreaterThanOrEqual(EVENTS / 4);
    service!.kill('SIGKILL');
    await new Promise((r) => service!.once('exit', r));
    const killedAt = outbound.endpoint.seen.size;
    await new Promise((r) => setTimeout(r, 1_000));
    await start();
    await publishing;

    for (const deadline = Date.now() + 120_000; outbound.endpoint.seen.size < EVENTS && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
    const duplicates = outbound.endpoint.received - outbound.endpoint.seen.size;
    console.log(`outbound events, kill -9 of notifications-service at ${killedAt}/${EVENTS} delivered: ${outbound.endpoint.seen.size} delivered, ${EVENTS - outbound.endpoint.seen.size} lost, ${duplicates} duplicates, ${outbound.endpoint.badSignatures} bad signatures`);
    expect({ lost: EVENTS - outbound.endpoint.seen.size, badSignatures: outbound.endpoint.badSignatures }).toEqual({ lost: 0, badSignatures: 0 });
  }, 240_000);
});
