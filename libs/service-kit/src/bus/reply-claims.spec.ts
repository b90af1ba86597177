import { describe, expect, it } from '@jest/globals';
import { NatsRecordSerializer } from '@nestjs/microservices/serializers/nats-record.serializer.js';
import { SerializedReply, SingleSerializationNatsSerializer } from './reply-claims.js';

const standard = new NatsRecordSerializer();
const single = new SingleSerializationNatsSerializer();
const parsed = (record: unknown) => JSON.parse((record as { data: string }).data);

describe('SingleSerializationNatsSerializer', () => {
  const reply = { items: [{ id: 'conv_1', summary: 'Quotes " and \\u2028 survive', nested: { n: 1 } }], total: 1, page: 1, per_page: 25 };

  it('sends an already serialized reply as the same packet Nest would send for the reply itself', () => {
    for (const packet of [
      { id: 'req-1', response: reply, isDisposed: true },
      { id: 'req-2', response: reply },
      { response: reply },
      { id: 'req-3', response: reply, err: null, isDisposed: false },
    ]) {
      const spliced = single.serialize({ ...packet, response: new SerializedReply(JSON.stringify(reply)) });
      expect(parsed(spliced)).toEqual(parsed(standard.serialize(packet)));
      expect((spliced as { headers: unknown }).headers).toBeUndefined();
    }
  });

  it('leaves every other packet to Nest’s serializer (errors, disposal, plain replies)', () => {
    for (const packet of [{ id: 'a', err: { code: 'not_found' } }, { id: 'b', isDisposed: true }, { id: 'c', response: reply }]) {
      expect(single.serialize(packet)).toEqual(standard.serialize(packet));
    }
  });

  it('is the reply itself for any other serializer (toJSON)', () => {
    expect(JSON.parse(JSON.stringify({ response: new SerializedReply(JSON.stringify(reply)) }))).toEqual({ response: reply });
  });
});
