import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { parse } from 'yaml';

const root = resolve(fileURLToPath(import.meta.url), '../..');

/** No Docker engine runs here, so the compose file is checked structurally. */
describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(resolve(root, 'docker-compose.yml'), 'utf8'), { merge: true });

  it('runs PostgreSQL, NATS with JetStream, and one container per app', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['agents-service', 'api-gateway', 'conversations-service', 'nats', 'postgres']);
    expect(compose.services.nats.command).toContain('-js');
  });

  it('configures every app with the database and NATS', () => {
    for (const app of ['agents-service', 'conversations-service', 'api-gateway']) {
      const service = compose.services[app];
      expect(service.build.args.APP).toBe(app);
      expect(service.environment.DATABASE_URL).toMatch(/^postgres:\/\//);
      expect(service.environment.NATS_URL).toMatch(/^nats:\/\//);
      expect(Object.keys(service.depends_on)).toEqual(['postgres', 'nats']);
    }
    expect(compose.services['api-gateway'].ports).toEqual(['3000:3000']);
  });
});
