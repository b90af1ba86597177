import { describe, expect, it } from '@jest/globals';
import { environment, readConfig } from './config.js';

describe('JETSTREAM_REPLICAS', () => {
  const read = (value?: string) => {
    const config = readConfig(value === undefined ? {} : { JETSTREAM_REPLICAS: value });
    const replicas = environment.jetstreamReplicas(config);
    return { replicas, done: () => config.done() };
  };

  it('is 1 when unset (a single server) and takes 3 for a three-node cluster', () => {
    expect(read().replicas).toBe(1);
    expect(read('3').replicas).toBe(3);
  });

  it.each(['0', '6', 'three', '2.5'])('refuses %s at start, naming the variable and JetStream’s range', (value) => {
    expect(read(value).done).toThrow(`JETSTREAM_REPLICAS must be an integer from 1 to 5 (got "${value}")`);
  });
});
