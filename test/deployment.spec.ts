import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { natsConnectionOptions } from '@voice/service-kit';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const text = readFileSync(resolve(root, 'docker-compose.yml'), 'utf8');
const clusteredEnvFile = resolve(root, 'deploy/nats/clustered.env');
const APPS = ['agents-service', 'conversations-service', 'notifications-service', 'api-gateway'];

/** `KEY=value` lines, as compose reads an --env-file (comments and blank lines skipped, the value taken as written). */
function envFile(path: string): Record<string, string> {
  const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() && !l.trimStart().startsWith('#'));
  return Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')).trim(), l.slice(l.indexOf('=') + 1).trim()]));
}

/** The compose file as compose resolves it with `vars`: every `${NAME:-default}` replaced, then parsed. */
function resolvedWith(vars: Record<string, string>) {
  const interpolated = text.replace(/\$\{(\w+):-([^}]*)\}/g, (_, name: string, fallback: string) => vars[name] || fallback);
  return parse(interpolated, { merge: true });
}

/** The value following `flag` in a nats-server command line (compose splits a string command at spaces). */
function flagValue(command: string, flag: string): string | undefined {
  const words = command.split(/\s+/);
  const at = words.indexOf(flag);
  return at >= 0 ? words[at + 1] : undefined;
}

/** No Docker engine runs here, so the compose file is checked structurally, and by the compose CLIs when installed. */
describe('docker-compose.yml', () => {
  const compose = parse(text, { merge: true });

  it('runs PostgreSQL, NATS with JetStream, and one container per app (the default profile)', () => {
    const byDefault = Object.keys(compose.services).filter((name) => !compose.services[name].profiles);
    expect(byDefault.sort()).toEqual(['agents-service', 'api-gateway', 'conversations-service', 'nats', 'notifications-service', 'postgres']);
    expect(compose.services.nats.command).toContain('-js');
  });

  it('by default: one NATS server, not clustered, every app on it with JETSTREAM_REPLICAS 1', () => {
    const resolved = resolvedWith({});
    expect(resolved.services.nats.command).not.toContain('--cluster');
    for (const app of APPS) {
      expect(natsConnectionOptions(resolved.services[app].environment.NATS_URL).servers).toEqual(['nats://nats:4222']);
      expect(String(resolved.services[app].environment.JETSTREAM_REPLICAS)).toBe('1');
    }
  });

  it('the clustered profile: three JetStream nodes routed to each other, every app on all three with JETSTREAM_REPLICAS 3', () => {
    const vars = envFile(clusteredEnvFile);
    expect(vars.COMPOSE_PROFILES).toBe('clustered');
    const resolved = resolvedWith(vars);
    const nodes = ['nats', 'nats-2', 'nats-3'];
    expect(Object.keys(resolved.services).filter((name) => resolved.services[name].profiles?.includes('clustered')).sort()).toEqual(['nats-2', 'nats-3']);
    const commands = nodes.map((node) => resolved.services[node].command as string);
    for (const command of commands) {
      expect(command).toContain('-js');
      expect(flagValue(command, '--cluster_name')).toBe('voice');
      expect(flagValue(command, '--cluster')).toBe('nats://0.0.0.0:6222');
      expect(flagValue(command, '--routes')?.split(',')).toEqual(nodes.map((node) => `nats://${node}:6222`));
    }
    // Each node its own name and its own store.
    expect(new Set(commands.map((command) => flagValue(command, '--server_name'))).size).toBe(3);
    expect(new Set(nodes.map((node) => resolved.services[node].volumes[0].split(':')[0])).size).toBe(3);
    for (const node of nodes) expect(resolved.volumes).toHaveProperty(resolved.services[node].volumes[0].split(':')[0]);
    for (const app of APPS) {
      const target = natsConnectionOptions(resolved.services[app].environment.NATS_URL);
      expect(target.servers).toEqual(nodes.map((node) => `nats://${node}:4222`));
      expect(target.user).toBeTruthy();
      expect(String(resolved.services[app].environment.JETSTREAM_REPLICAS)).toBe('3');
    }
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
    // The clustered profile, as its env file selects it: three NATS nodes.
    const clustered = spawnSync(command, [...sub, '-f', resolve(root, 'docker-compose.yml'), '--env-file', clusteredEnvFile, 'config'], { encoding: 'utf8', env });
    expect({ status: clustered.status, stderr: clustered.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
    expect(Object.keys(parse(clustered.stdout).services)).toEqual(expect.arrayContaining(['nats', 'nats-2', 'nats-3']));
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
