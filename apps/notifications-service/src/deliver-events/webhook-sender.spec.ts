import { describe, expect, it } from '@jest/globals';
import { boundedResolver, WebhookSender } from './webhook-sender.js';

describe('the address check’s DNS lookup is bounded', () => {
  it('a resolver that never answers fails with ETIMEOUT after the bound', async () => {
    const hanging = boundedResolver(50, () => new Promise(() => undefined));
    const started = Date.now();
    await expect(hanging('receiver.example')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('an answer in time passes through', async () => {
    const quick = boundedResolver(1_000, async () => [{ address: '203.0.113.7', family: 4 }]);
    expect(await quick('receiver.example')).toEqual([{ address: '203.0.113.7', family: 4 }]);
  });
});

describe('the address check of a URL whose host is an IP address', () => {
  it('refuses a forbidden one on every attempt, the first checked and the next from the kept verdict', async () => {
    const sender = new WebhookSender({ allowPrivate: false });
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        const sent = await sender.send('http://169.254.169.254/latest/meta-data', ['whsec_' + Buffer.alloc(24, 1).toString('base64')], 'evt_1', '{}');
        expect(sent.error).toMatch(/^forbidden_address: 169\.254\.169\.254 is a link-local/);
        expect(sent.statusCode).toBeUndefined();
      }
    } finally {
      sender.close();
    }
  });
});
