import { describe, expect, it } from '@jest/globals';
import { boundedResolver } from './webhook-sender.js';

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
