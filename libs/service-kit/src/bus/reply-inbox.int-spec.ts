import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { randomNamespace, testNatsUrl } from '@voice/testing';
import { ReplyFailed, ReplyInbox } from './reply-inbox.js';

describe('ReplyInbox: requests over one shared reply subscription', () => {
  const subject = `${randomNamespace()}.echo`;
  let server: NatsConnection;
  let client: NatsConnection;
  let inbox: ReplyInbox;

  beforeAll(async () => {
    server = await connect({ servers: testNatsUrl() });
    client = await connect({ servers: testNatsUrl() });
    // Answers "<n>" after n ms, out of order when the waits differ; says nothing to "silent".
    server.subscribe(subject, {
      callback: (_err, msg) => {
        const text = msg.string();
        if (text === 'silent') return;
        setTimeout(() => msg.respond(`re:${text}`), Number(text) || 0);
      },
    });
    await server.flush();
    inbox = new ReplyInbox(client, '_INBOX_spec');
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('hands each reply to its own request, whatever order the replies come in', async () => {
    const waits = Array.from({ length: 300 }, (_, i) => (i * 7) % 40);
    const replies = await Promise.all(waits.map((ms) => inbox.request(subject, String(ms), { timeoutMs: 5_000 })));
    expect(replies.map((m) => m.string())).toEqual(waits.map((ms) => `re:${ms}`));
    expect(replies.every((m) => m.subject.startsWith('_INBOX_spec.'))).toBe(true);
  });

  it('fails a request nobody answers at its deadline, and one nobody listens to at once', async () => {
    const started = Date.now();
    await expect(inbox.request(subject, 'silent', { timeoutMs: 200 })).rejects.toMatchObject({ kind: 'timeout' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    await expect(inbox.request(`${subject}.nobody`, 'x', { timeoutMs: 5_000 })).rejects.toBeInstanceOf(ReplyFailed);
    await expect(inbox.request(`${subject}.nobody`, 'x', { timeoutMs: 5_000 })).rejects.toMatchObject({ kind: 'no_responders' });
    // Nothing is left waiting.
    await expect(inbox.request(subject, '1', { timeoutMs: 2_000 })).resolves.toMatchObject({});
  });
});
