import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { callEvents, startHarness, type Harness } from '../testing/harness.js';

// Real PostgreSQL and NATS, on a machine shared with other suites: generous, not tight, timeouts.
jest.setTimeout(60_000);

/** An event whose agent is not known yet waits in parked_call_events: what it says is redacted before it waits there. */
describe('parked call events and personal data', () => {
  let h: Harness;
  const account = `acc_${randomUUID()}`;

  beforeAll(async () => {
    h = await startHarness({ tuning: { parkedSweepMs: 500 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('parks the transcript with every detected category redacted, and records that once the agent is known', async () => {
    const agent = `agt_${randomUUID()}`;
    const call = callEvents(`conv-${randomUUID()}`, agent);
    const said = 'my card is four one one one, one one one one, one one one one, one one one one and my email is ann@example.com';
    await h.publishCallEvents([call.started(), call.transcript(5, [{ speaker: 'caller', text: said, start_ms: 1000, end_ms: 6000 }])]);

    const parkedText = async () =>
      (await h.db.query(`SELECT event->'data'->'segments'->0->>'text' AS text FROM conversations.parked_call_events WHERE agent_id = $1 AND event->>'type' = 'call.transcript'`, [agent])).rows[0]?.text;
    await h.eventually(async () => expect(await parkedText()).toBeDefined(), 20_000);
    expect(await parkedText()).toBe('my card is [CREDIT_CARD] and my email is [EMAIL]');
    const raw = (await h.db.query(`SELECT event::text AS event FROM conversations.parked_call_events WHERE agent_id = $1`, [agent])).rows.map((r) => r.event).join('\n');
    expect(raw).not.toContain('ann@example.com');
    expect(raw).not.toContain('four one one one');

    await h.publishKnownAgent({ agent_id: agent, account_id: account });
    const transcript = await h.eventually(async () => {
      const reply = await h.transcript(account, call.started().conversation_id, 'json');
      expect(JSON.stringify(reply)).toContain('[CREDIT_CARD]');
      return JSON.stringify(reply);
    }, 20_000);
    expect(transcript).not.toContain('ann@example.com');
  });
});
