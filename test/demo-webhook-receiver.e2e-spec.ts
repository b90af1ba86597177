import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
// @ts-expect-error: the launcher's modules are plain ESM JavaScript without type declarations.
import { KEPT_DELIVERIES, RECEIVER_PATH, startWebhookReceiver } from '../scripts/start/webhook-receiver.mjs';

interface Receiver {
  url: string;
  endpointUrl: string;
  useSecretSource(source: () => Promise<string | undefined>): Promise<void>;
  stop(): Promise<void>;
}

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** A delivery as notifications-service sends it: the Standard Webhooks headers, signed with `secret`. */
function signed(secret: string, event: { id: string; type: string; data: unknown }) {
  const body = JSON.stringify({ ...event, timestamp: new Date().toISOString() });
  const at = new Date();
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(event.id, at, body),
    },
  };
}

/** The receiver `npm start` runs for the demo account's webhook endpoint, on its own. */
describe('the demo webhook receiver', () => {
  let receiver: Receiver;
  let secret = newSecret();
  let secretReads = 0;

  beforeAll(async () => {
    receiver = await startWebhookReceiver({ DEMO_WEBHOOK_RECEIVER_PORT: '0' }, { secretRefreshMs: 0 });
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  const post = (delivery: { body: string; headers: Record<string, string> }) =>
    fetch(receiver.endpointUrl, { method: 'POST', headers: delivery.headers, body: delivery.body });
  const received = async () => ((await (await fetch(`${receiver.url}/`)).json()) as { deliveries: any[] }).deliveries;

  it('refuses a delivery (401) while it has no secret, and lists it as refused', async () => {
    expect(receiver.endpointUrl).toBe(`${receiver.url}${RECEIVER_PATH}`);
    const res = await post(signed(secret, { id: 'evt_early', type: 'webhook.test', data: { endpoint_id: 'we_1' } }));
    expect(res.status).toBe(401);
    expect((await received())[0]).toMatchObject({ webhook_id: 'evt_early', type: 'webhook.test', verified: false, problem: expect.any(String) });
  });

  it('verifies with the secret it reads from its source (204), newest first', async () => {
    await receiver.useSecretSource(async () => (secretReads++, secret));
    const res = await post(signed(secret, { id: 'evt_ok', type: 'conversation.ended', data: { sequence: 3 } }));
    expect(res.status).toBe(204);
    expect((await received())[0]).toMatchObject({ webhook_id: 'evt_ok', type: 'conversation.ended', verified: true, summary: '{"sequence":3}' });
  });

  it('reads the secret again when a signature does not verify, so a rotation is picked up at once', async () => {
    const before = secretReads;
    secret = newSecret();
    const res = await post(signed(secret, { id: 'evt_rotated', type: 'webhook.test', data: {} }));
    expect(res.status).toBe(204);
    expect(secretReads).toBe(before + 1);
    // A wrong signature stays refused, after one more read.
    const forged = await post(signed(newSecret(), { id: 'evt_forged', type: 'webhook.test', data: {} }));
    expect(forged.status).toBe(401);
    expect((await received())[0]).toMatchObject({ webhook_id: 'evt_forged', verified: false });
  });

  it('keeps the last deliveries only, and shows them as a page to a browser (escaped)', async () => {
    for (let i = 0; i < KEPT_DELIVERIES + 5; i++) await post(signed(secret, { id: `evt_${i}`, type: 'webhook.test', data: { note: '<b>hi</b>' } }));
    const kept = await received();
    expect(kept).toHaveLength(KEPT_DELIVERIES);
    expect(kept[0].webhook_id).toBe(`evt_${KEPT_DELIVERIES + 4}`);
    const page = await fetch(`${receiver.url}/`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain(`evt_${KEPT_DELIVERIES + 4}`);
    expect(html).not.toContain('<b>hi</b>');
  });

  it('answers 404 elsewhere and 413 to a body over 1 MiB', async () => {
    expect((await fetch(`${receiver.url}/elsewhere`)).status).toBe(404);
    const big = await fetch(receiver.endpointUrl, { method: 'POST', body: 'x'.repeat(1024 * 1024 + 1) }).catch(() => undefined);
    // The receiver answers 413 and stops reading; the client may see the answer or the connection closing first.
    if (big) expect(big.status).toBe(413);
    expect((await received()).some((d) => d.summary.includes('xxxx'))).toBe(false);
  });
});
