import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { parse } from 'yaml';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const text = readFileSync(resolve(root, 'docker-compose.yml'), 'utf8');

/** No Docker engine runs here, so the compose file is checked structurally, and by the compose CLIs when installed. */
describe('docker-compose.yml', () => {
  const compose = parse(text, { merge: true });

  it('runs PostgreSQL, NATS with JetStream, and one container per app', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['agents-service', 'api-gateway', 'conversations-service', 'nats', 'notifications-service', 'postgres']);
    expect(compose.services.nats.command).toContain('-js');
  });

  it('configures every app with the database and NATS', () => {
    for (const app of ['agents-service', 'conversations-service', 'notifications-service', 'api-gateway']) {
      const service = compose.services[app];
      expect(service.build.args.APP).toBe(app);
      expect(service.environment.DATABASE_URL).toMatch(/^postgres:\/\//);
      expect(service.environment.NATS_URL).toMatch(/^nats:\/\//);
      expect(Object.keys(service.depends_on)).toEqual(['postgres', 'nats']);
    }
    expect(compose.services['api-gateway'].ports).toEqual(['3000:3000']);
  });

  it('starts without ADMIN_TOKEN (admin routes disabled) and passes it to the gateway when set', () => {
    // Every interpolation has a default: `docker compose up` alone must not fail.
    for (const [, variable, rest] of text.matchAll(/\$\{(\w+)([^}]*)\}/g)) expect({ variable, default: rest.startsWith(':-') }).toEqual({ variable, default: true });
    expect(compose.services['api-gateway'].environment.ADMIN_TOKEN).toBe('${ADMIN_TOKEN:-}');
  });

  it('stays valid for docker-compose v1 as well as docker compose v2 (no top-level `name`)', () => {
    expect(Object.keys(compose).filter((k) => !k.startsWith('x-')).sort()).toEqual(['services', 'volumes']);
  });

  it.each([
    { cli: 'docker compose', argv: ['docker', 'compose'] },
    { cli: 'docker-compose', argv: ['docker-compose'] },
  ])('is accepted by `$cli config` when that CLI is installed, with and without ADMIN_TOKEN', ({ argv: [command, ...sub] }) => {
    const env = { ...process.env };
    delete env.ADMIN_TOKEN;
    for (const adminToken of [undefined, 'adm_test']) {
      const run = spawnSync(command, [...sub, '-f', resolve(root, 'docker-compose.yml'), 'config'], {
        encoding: 'utf8',
        env: adminToken ? { ...env, ADMIN_TOKEN: adminToken } : env,
      });
      // Not installed (or no compose plugin): nothing to check with it here.
      if (run.error || /unknown command|is not a docker command|unknown shorthand flag/i.test(run.stderr)) return;
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
      const resolved = parse(run.stdout);
      expect(resolved.services['api-gateway'].environment.ADMIN_TOKEN ?? '').toBe(adminToken ?? '');
    }
  });
});

describe('Dockerfile', () => {
  it('copies every top-level folder the build references, so `tsc -b` in the image sees every project', () => {
    const dockerfile = readFileSync(resolve(root, 'Dockerfile'), 'utf8');
    const build = JSON.parse(readFileSync(resolve(root, 'tsconfig.build.json'), 'utf8')) as { references: Array<{ path: string }> };
    const referenced = [...new Set(build.references.map((r) => r.path.split('/')[0]))].sort();
    const copied = [...dockerfile.matchAll(/^COPY (\w[\w-]*) \.\/\1$/gm)].map((m) => m[1]).sort();
    expect(copied).toEqual(expect.arrayContaining(referenced));
  });
});
