import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import pg from 'pg';
import { InProcessBus, InProcessStreams } from '@voice/service-kit';
import { startAgentsService } from '../apps/agents-service/src/app.js';
import { startConversationsService } from '../apps/conversations-service/src/app.js';
import { startNotificationsService } from '../apps/notifications-service/src/app.js';
import { startGateway } from '../apps/api-gateway/src/app.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { apiClient, type ApiClient } from './support/http.js';
import { configureIntegrations, startTestPlatforms } from './support/platforms.js';
import { pollUntil } from './support/poll.js';
import { testIntegrationsOptions, testNotificationsOptions } from './support/system.js';

/**
 * deploy/postgres/roles.psql, as shipped, on a fresh database: the apps migrate as the owner
 * (DATABASE_MIGRATION_URL) and run as their own runtime roles (DATABASE_URL), and a runtime role
 * reaches nothing outside its schema. Roles are cluster-wide, so this file's have names of their own.
 */
const suffix = randomBytes(4).toString('hex');
const roles = { owner: `t_owner_${suffix}`, gateway: `t_gateway_${suffix}`, agents: `t_agents_${suffix}`, conversations: `t_conversations_${suffix}`, notifications: `t_notifications_${suffix}` };
const PASSWORD = `pw_${suffix}`;

function asRole(dbUrl: string, role: string): string {
  const url = new URL(dbUrl);
  url.username = role;
  url.password = PASSWORD;
  return url.toString();
}

async function queryAs<R extends Record<string, any> = any>(url: string, sql: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

const T0 = Date.parse('2025-03-01T10:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString().replace('.000Z', 'Z');

describe('least-privilege database roles (deploy/postgres/roles.psql)', () => {
  let db: TestDatabase;
  const closers: Array<() => Promise<unknown>> = [];
  let api: ApiClient;

  beforeAll(async () => {
    db = await createTestDatabase('roles');
    await db.query(`CREATE ROLE ${roles.owner} LOGIN PASSWORD '${PASSWORD}'`);
    const psql = spawnSync(
      'psql',
      [
        '-X', '-q', '-v', 'ON_ERROR_STOP=1',
        '-v', `owner=${roles.owner}`,
        '-v', `gateway_role=${roles.gateway}`, '-v', `gateway_password=${PASSWORD}`,
        '-v', `agents_role=${roles.agents}`, '-v', `agents_password=${PASSWORD}`,
        '-v', `conversations_role=${roles.conversations}`, '-v', `conversations_password=${PASSWORD}`,
        '-v', `notifications_role=${roles.notifications}`, '-v', `notifications_password=${PASSWORD}`,
        '-f', resolve('deploy/postgres/roles.psql'), db.url,
      ],
      { encoding: 'utf8' },
    );
    expect({ status: psql.status, stderr: psql.stderr }).toEqual({ status: 0, stderr: '' });

    const platforms = await startTestPlatforms();
    closers.push(() => platforms.stop());
    const local = { rpc: new InProcessBus(), streams: new InProcessStreams() };
    const databaseMigrationUrl = asRole(db.url, roles.owner);
    const agents = await startAgentsService({ databaseUrl: asRole(db.url, roles.agents), databaseMigrationUrl, local, ...testIntegrationsOptions() });
    closers.push(() => agents.close());
    const conversations = await startConversationsService({ databaseUrl: asRole(db.url, roles.conversations), databaseMigrationUrl, local });
    closers.push(() => conversations.close());
    const notifications = await startNotificationsService({ databaseUrl: asRole(db.url, roles.notifications), databaseMigrationUrl, local, ...testNotificationsOptions() });
    closers.push(() => notifications.close());
    const adminToken = `admin_${suffix}`;
    const gateway = await startGateway({ port: 0, host: '127.0.0.1', databaseUrl: asRole(db.url, roles.gateway), databaseMigrationUrl, local, adminToken, rpcTimeoutMs: 3000 });
    closers.push(() => gateway.close());

    const created = await apiClient(gateway.url, adminToken).post('/v1/admin/accounts', { name: 'Roles', plan: 'starter', agent_limit: 5, voice_platforms: ['platform_a'] });
    expect(created.status).toBe(201);
    api = apiClient(gateway.url, created.body.data.api_key);
    await configureIntegrations(api, platforms, ['platform_a']);
  }, 60_000);

  afterAll(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await db?.drop().catch(() => undefined);
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
    await admin.connect();
    try {
      for (const role of Object.values(roles)) await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
    } finally {
      await admin.end();
    }
  });

  it('migrates every schema as the owner, and each app works as its runtime role', async () => {
    const owners = await db.query(`SELECT schemaname, tableowner FROM pg_tables WHERE schemaname IN ('gateway', 'agents', 'conversations', 'notifications') GROUP BY 1, 2`);
    expect(owners.rows.map((r) => r.tableowner)).toEqual([roles.owner, roles.owner, roles.owner, roles.owner]);

    const agent = await api.post('/v1/agents', { name: 'Front desk', voice_platform: 'platform_a' });
    expect(agent.status).toBe(201);
    const agentId = agent.body.data.id;
    const events = [
      { id: 'roles-1', type: 'call.started', conversation_id: 'conv-roles', agent_id: agentId, occurred_at: at(0), data: { caller_number: '+14155550100', start_time: at(0) } },
      { id: 'roles-2', type: 'call.ended', conversation_id: 'conv-roles', agent_id: agentId, occurred_at: at(30),
        data: { end_time: at(30), duration: 30, summary: 'Moved an appointment.', sentiment: 'neutral', outcome: 'resolved', topics: ['booking'] } },
    ];
    expect((await api.post('/v1/call-events', { events })).status).toBe(202);
    const detail = await pollUntil(() => api.get('/v1/conversations/conv-roles'), (r) => r.status === 200 && r.body.data.status === 'completed', 10_000);
    expect(detail.body.data).toMatchObject({ agent_id: agentId, agent_name: 'Front desk', duration: 30 });
    expect((await api.get('/v1/conversations?search=appointment')).body.data.map((c: { id: string }) => c.id)).toEqual(['conv-roles']);
  }, 30_000);

  it.each([
    ['gateway', 'agents.agents'],
    ['agents', 'conversations.conversations'],
    ['conversations', 'gateway.api_keys'],
    ['conversations', 'agents.agents'],
    ['notifications', 'agents.agents'],
    ['notifications', 'gateway.api_keys'],
    ['gateway', 'notifications.endpoints'],
  ] as const)('refuses %s reading %s', async (role, table) => {
    await expect(queryAs(asRole(db.url, roles[role]), `SELECT * FROM ${table} LIMIT 1`)).rejects.toThrow(/permission denied/);
  });

  it.each(['gateway', 'agents', 'conversations', 'notifications'] as const)('lets %s create nothing: no table in public or its schema, no schema', async (role) => {
    const url = asRole(db.url, roles[role]);
    await expect(queryAs(url, 'CREATE TABLE public.intruder (id int)')).rejects.toThrow(/permission denied/);
    await expect(queryAs(url, `CREATE TABLE ${role}.intruder (id int)`)).rejects.toThrow(/permission denied/);
    await expect(queryAs(url, 'CREATE SCHEMA intruder')).rejects.toThrow(/permission denied/);
    await expect(queryAs(url, `DROP TABLE ${role}.migrations`)).rejects.toThrow(/must be owner/);
  });
});
