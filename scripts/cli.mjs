#!/usr/bin/env node
// Operator CLI: `npm run cli -- <command> --help`. Talks to a running service over
// its HTTP API (admin token or API key), except `projections rebuild`, which works
// on the database directly like a migration does. After `npm start`, the URL and the
// demo key default to those of the start running on DATA_DIR. Tables on a terminal,
// JSON with --json or when the output is piped.
import { Command, InvalidArgumentError, Option } from 'commander';
import cliProgress from 'cli-progress';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { fetchPaced } from './fetch-paced.mjs';
import { dataDir, demoApiKey, runningStart } from './local-start.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The API's voice platforms, from the built contracts (agents.js imports nothing at run time). Before a build the
 * options take any value and the API names the valid ones in its refusal.
 */
const builtAgentsContract = join(root, 'libs', 'contracts', 'dist', 'agents.js');
const VOICE_PLATFORMS = existsSync(builtAgentsContract) ? (await import(pathToFileURL(builtAgentsContract).href)).VOICE_PLATFORMS : undefined;
const voicePlatformOption = (help) => {
  const option = new Option('--voice-platform <platform>', help);
  return VOICE_PLATFORMS ? option.choices(VOICE_PLATFORMS) : option;
};

/** A failure the operator can act on: printed without a stack trace. */
export class CliError extends Error {
  constructor(message, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

const positiveInt = (value) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
};

/**
 * An option value that must be a URL of one of `protocols` (a usage error otherwise);
 * empty (e.g. `DATABASE_URL=` in the environment) counts as not given.
 */
const urlOf = (protocols, fallback) => (value) => {
  if (!value.trim()) return fallback;
  let parsed;
  try {
    parsed = new URL(value);
  } catch {
    throw new InvalidArgumentError(`not a URL (expected ${protocols.join(' or ')}://…)`);
  }
  if (!protocols.includes(parsed.protocol.replace(/:$/, '')) || !parsed.hostname) throw new InvalidArgumentError(`expected a ${protocols.join(' or ')} URL`);
  return value;
};

/** A connection URL fit for a message: user and password removed. */
function redact(url) {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//');
  }
}

function adminToken(opts) {
  const token = opts.adminToken ?? process.env.ADMIN_TOKEN;
  if (token) return token;
  const file = join(dataDir(), 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new CliError('no admin token: pass --admin-token or set ADMIN_TOKEN', 2);
}

/**
 * The embedded database of `npm start` (DATA_DIR, default .data), when there is one:
 * its port is read from PostgreSQL's own lock file, so a non-default EMBEDDED_PG_PORT is found too.
 */
function embeddedDatabaseUrl() {
  const pgDir = join(dataDir(), 'postgres');
  if (!existsSync(join(pgDir, 'PG_VERSION'))) return undefined;
  const where = relative(root, dataDir()).startsWith('..') ? dataDir() : relative(root, dataDir());
  let port;
  try {
    port = Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[3]);
  } catch {
    throw new CliError(`the embedded database in ${where}/ is not running: start the service (npm start) first, or pass --database-url`, 3);
  }
  return { url: `postgres://postgres:postgres@127.0.0.1:${port || 54329}/voice`, where };
}

/**
 * Node's codes for a connection that cannot be made or was lost: service-kit's
 * CONNECTION_LOST_CODES, mirrored because this script runs without a build
 * (pg-errors.spec checks that the two are equal).
 */
export const CONNECTION_LOST_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);
function networkCode(err) {
  if (err?.code && CONNECTION_LOST_CODES.has(err.code)) return err.code;
  for (const inner of [...(err?.errors ?? []), err?.cause]) {
    const code = inner && networkCode(inner);
    if (code) return code;
  }
  if (/timeout expired|Connection terminated due to connection timeout/i.test(err?.message ?? '')) return 'timeout';
  // 57P03: the database system is starting up / shutting down.
  return err?.code === '57P03' ? err.message : undefined;
}

function apiKey(opts) {
  // The demo key only while its `npm start` runs: another service would not know it.
  const key = opts.apiKey || process.env.VOICE_API_KEY || (runningStart().api ? demoApiKey() : undefined);
  if (!key) throw new CliError('no API key: pass --api-key or set VOICE_API_KEY (after `npm start`, the demo key is used)', 2);
  return key;
}

async function call(opts, method, path, options = {}) {
  return (await request(opts, method, path, options)).body;
}

/** One HTTP request; resolves with the parsed body and the response headers, throws a CliError on a refusal. */
async function request(opts, method, path, { token, body, accept, headers: extra } = {}) {
  const url = new URL(path, opts.url);
  let res;
  try {
    res = await fetchPaced(url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(accept ? { accept } : {}),
        ...extra,
      },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (err) {
    throw new CliError(`cannot reach ${opts.url}: ${err.cause?.code ?? err.message} (is the service running? see --url)`, 3);
  }
  const text = await res.text();
  const json = text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : undefined;
  if (!res.ok) {
    const e = json?.error;
    // 502/503/504: the service (or one behind the gateway) is not answering; anything else is a refusal.
    throw new CliError(e ? `${res.status} ${e.code}: ${e.message}${e.field ? ` (field ${e.field})` : ''}` : `${res.status} ${text}`, [502, 503, 504].includes(res.status) ? 3 : 1);
  }
  return { body: json ?? text, headers: res.headers };
}

/** Every item of a list, following `links.next` (kept on --url: only its path and query are used). */
async function* allPages(opts, path, token) {
  while (path) {
    const page = await call(opts, 'GET', path, { token });
    yield page.data;
    const next = page.links?.next ? new URL(page.links.next, opts.url) : undefined;
    path = next ? `${next.pathname}${next.search}` : null;
  }
}

const print = (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/** Tables for a person at a terminal; JSON when asked (--json) or when the output goes to a pipe or a file. */
const wantsJson = (opts) => opts.json === true || (opts.table !== true && process.stdout.isTTY !== true);

const cellText = (value) => {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
};

/** `columns`: [header, value of a row]; long cells are cut so a row fits a line. */
export function renderTable(rows, columns, { maxCell = 48 } = {}) {
  const cut = (text) => (text.length > maxCell ? `${text.slice(0, maxCell - 1)}…` : text).replace(/[\r\n\t]+/g, ' ');
  const cells = rows.map((row) => columns.map(([, get]) => cut(cellText(get(row)))));
  const widths = columns.map(([header], i) => Math.max(header.length, ...cells.map((r) => r[i].length)));
  const line = (values) => values.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
  return [line(columns.map(([h]) => h.toUpperCase())), ...cells.map(line)].join('\n') + '\n';
}

/** "1 agent", "2 agents" (`plural` ends with s). */
const count = (n, plural) => `${n} ${n === 1 ? plural.slice(0, -1) : plural}`;

/** A list page: the items as JSON, or a table with where the page is in the whole list. */
function printList(opts, page, columns, noun) {
  if (wantsJson(opts)) return print(page.data);
  if (page.data.length === 0) return process.stdout.write(`no ${noun}\n`);
  process.stdout.write(renderTable(page.data, columns));
  const { page: at, total_pages: pages, total } = page.meta ?? {};
  if (total !== undefined) process.stdout.write(`\npage ${at} of ${pages} (${count(total, noun)})${at < pages ? `; --page ${at + 1} for more` : ''}\n`);
}

/** One record: JSON, or one `field  value` line per field. */
function printRecord(opts, record, fields = Object.keys(record)) {
  if (wantsJson(opts)) return print(record);
  process.stdout.write(renderTable(fields.map((f) => ({ f, v: record[f] })), [['field', (r) => r.f], ['value', (r) => r.v]], { maxCell: 200 }).split('\n').slice(1).join('\n'));
}

const keyOption = (scope) => new Option('--api-key <key>', `API key with ${scope} (default: VOICE_API_KEY, else the demo key of the running \`npm start\`)`).env('VOICE_API_KEY');
const pageOptions = (command, perPage = 25) =>
  command.option('--page <n>', 'page number', positiveInt, 1).option('--per-page <n>', 'items per page (1–100)', positiveInt, perPage);
const query = (values) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== '') q.set(k, String(v));
  return q.toString();
};
const id = (value) => encodeURIComponent(value);

const AGENT_COLUMNS = [
  ['id', (a) => a.id],
  ['name', (a) => a.name],
  ['status', (a) => a.status],
  ['platform', (a) => a.voice_platform],
  ['phone', (a) => a.phone_number],
  ['sync', (a) => a.platform_sync?.state],
  ['updated', (a) => a.updated_at],
];
const CONVERSATION_COLUMNS = [
  ['id', (c) => c.id],
  ['agent', (c) => c.agent_name],
  ['caller', (c) => c.caller_number],
  ['status', (c) => c.status],
  ['started', (c) => c.start_time],
  ['duration', (c) => c.duration],
  ['sentiment', (c) => c.sentiment],
  ['outcome', (c) => c.outcome],
];
const KEY_COLUMNS = [
  ['id', (k) => k.id],
  ['name', (k) => k.name],
  ['prefix', (k) => k.prefix],
  ['scopes', (k) => k.scopes],
  ['last used', (k) => k.last_used_at],
  ['created', (k) => k.created_at],
];
const INTEGRATION_COLUMNS = [
  ['platform', (i) => i.platform],
  ['status', (i) => i.status],
  ['base url', (i) => i.base_url],
  ['api key', (i) => i.api_key_hint],
  ['rejected 24h', (i) => i.rejected_deliveries_24h],
  ['updated', (i) => i.updated_at],
];

export function buildProgram() {
  const defaultUrl = runningStart().api ?? 'http://127.0.0.1:3000';
  const program = new Command('cli')
    .description('Operate the voice agent operations service.')
    .addOption(new Option('--url <url>', 'base URL of the service (default: the `npm start` running on DATA_DIR, else http://127.0.0.1:3000)').env('VOICE_API_URL').default(defaultUrl).argParser(urlOf(['http', 'https'], defaultUrl)))
    .option('--json', 'print JSON (the default when the output is not a terminal)')
    .option('--table', 'print tables even when the output is not a terminal')
    .showHelpAfterError()
    .exitOverride();

  const accounts = program.command('accounts').description('Accounts (admin token).');
  accounts
    .command('create')
    .description('Create an account and print its first API key (shown once).')
    .requiredOption('--name <name>', 'account name')
    .option('--plan <plan>', 'plan label', 'starter')
    .option('--agent-limit <n>', 'most agents the account may have', positiveInt, 10)
    .option('--platforms <list>', 'voice platforms the account may use, comma-separated (default: all)')
    .option('--admin-token <token>', 'admin token (default: ADMIN_TOKEN, or .data/admin-token)')
    .action(async (o, cmd) => {
      const opts = { ...cmd.optsWithGlobals() };
      print(
        (await call(opts, 'POST', '/v1/admin/accounts', {
          token: adminToken(o),
          body: {
            name: o.name, plan: o.plan, agent_limit: o.agentLimit,
            // Absent: the API gives the account every platform.
            ...(o.platforms ? { voice_platforms: o.platforms.split(',').map((s) => s.trim()).filter(Boolean) } : {}),
          },
        })).data,
      );
    });

  const keys = program.command('keys').description('API keys of the account behind --api-key.');
  keys
    .command('create')
    .description('Create a key with the given scopes (a subset of the calling key’s).')
    .requiredOption('--scopes <list>', 'comma-separated, e.g. conversations:read,agents:read')
    .option('--name <name>', 'a label for the key')
    .addOption(keyOption('api_keys:write'))
    .action(async (o, cmd) => {
      const body = { scopes: o.scopes.split(',').map((s) => s.trim()).filter(Boolean), ...(o.name ? { name: o.name } : {}) };
      const opts = cmd.optsWithGlobals();
      const created = (await call(opts, 'POST', '/v1/api-keys', { token: apiKey(o), body })).data;
      printRecord(opts, created);
      if (!wantsJson(opts)) process.stdout.write('\nthe api_key is shown only once: keep it now\n');
    });
  keys
    .command('list')
    .description('List every key of the account (never their secrets).')
    .addOption(keyOption('api_keys:write'))
    .action(async (o, cmd) => {
      const opts = cmd.optsWithGlobals();
      const all = [];
      for await (const items of allPages(opts, '/v1/api-keys?per_page=100', apiKey(o))) all.push(...items);
      if (wantsJson(opts)) print(all);
      else process.stdout.write(all.length ? `${renderTable(all, KEY_COLUMNS)}\n${count(all.length, 'keys')}\n` : 'no keys\n');
    });
  keys
    .command('revoke <id>')
    .description('Revoke a key at once.')
    .addOption(keyOption('api_keys:write'))
    .action(async (id, o, cmd) => {
      await call(cmd.optsWithGlobals(), 'DELETE', `/v1/api-keys/${encodeURIComponent(id)}`, { token: apiKey(o) });
      process.stdout.write(`revoked ${id}\n`);
    });

  program
    .command('simulate')
    .description('Publish realistic calls (see `npm run simulate -- --help`).')
    .allowUnknownOption()
    .helpOption(false)
    .argument('[args...]')
    .action((args, _o, cmd) => {
      // A --url given before `simulate` is the service to publish to, unless the simulator's own --url says otherwise.
      const url = cmd.optsWithGlobals().url;
      const forward = cmd.parent.getOptionValueSource('url') === 'cli' && !args.includes('--url') ? ['--url', url] : [];
      const result = spawnSync(process.execPath, [join(root, 'scripts', 'simulate.mjs'), ...args, ...forward], { stdio: 'inherit' });
      // The simulator said what went wrong; its exit code follows the same convention.
      if (result.status) process.exit(result.status);
      if (result.signal) process.exit(1);
    });

  const projections = program.command('projections').description('Read models built from the event stores.');
  projections
    .command('rebuild')
    .description('Rebuild the conversations read model from its event store, then check it equals the old one.')
    .argument('<name>', 'projection name: conversations')
    .addOption(
      new Option('--database-url <url>', 'PostgreSQL URL (default: the embedded database of `npm start` in DATA_DIR, when there is one)')
        .env('DATABASE_URL')
        .argParser(urlOf(['postgres', 'postgresql'], undefined)),
    )
    .option('--swap', 'replace the live read model with the rebuilt one when they differ', false)
    .action(async (name, o) => {
      if (name !== 'conversations') throw new CliError(`unknown projection "${name}" (known: conversations)`, 2);
      let databaseUrl = o.databaseUrl;
      if (!databaseUrl) {
        const embedded = embeddedDatabaseUrl();
        if (!embedded) throw new CliError('no database: pass --database-url or set DATABASE_URL (no embedded database found in DATA_DIR either)', 2);
        databaseUrl = embedded.url;
        process.stderr.write(`using the embedded database of ${embedded.where}/: ${redact(databaseUrl)}\n`);
      }
      const { rebuildConversationsProjection } = await import(pathToFileURL(join(root, 'scripts', 'rebuild-projection.mjs')).href);
      const progress = progressReporter('re-folding conversation streams');
      let report;
      try {
        report = await rebuildConversationsProjection({ databaseUrl, swap: o.swap, onProgress: progress.update });
      } catch (err) {
        const unreachable = networkCode(err);
        if (unreachable) throw new CliError(`cannot reach PostgreSQL at ${redact(databaseUrl)}: ${unreachable} (is it running? see --database-url)`, 3);
        // A PostgreSQL error (authentication, unknown database…) is a refusal; anything else is a bug and keeps its stack.
        if (err?.severity) throw new CliError(`PostgreSQL at ${redact(databaseUrl)} refused: ${err.message}`, 1);
        throw err;
      } finally {
        progress.stop();
      }
      print(report);
      if (!report.identical && !o.swap) throw new CliError('the rebuilt read model differs from the live one (run with --swap to replace it)', 4);
    });

  const agents = program.command('agents').description('Voice agents of the account behind --api-key.');
  pageOptions(
    agents
      .command('list')
      .description('List agents (newest first), one page at a time.')
      .addOption(new Option('--status <status>', 'active or paused').choices(['active', 'paused']))
      .addOption(voicePlatformOption('only this platform'))
      .option('--search <text>', 'part of the name'),
  )
    .addOption(keyOption('agents:read'))
    .action(async (o, cmd) => {
      const opts = cmd.optsWithGlobals();
      const q = query({ status: o.status, voice_platform: o.voicePlatform, search: o.search, page: o.page, per_page: o.perPage });
      printList(opts, await call(opts, 'GET', `/v1/agents?${q}`, { token: apiKey(o) }), AGENT_COLUMNS, 'agents');
    });
  agents
    .command('get <id>')
    .description('One agent, with its platform sync state.')
    .addOption(keyOption('agents:read'))
    .action(async (agentId, o, cmd) => {
      const opts = cmd.optsWithGlobals();
      printRecord(opts, (await call(opts, 'GET', `/v1/agents/${id(agentId)}`, { token: apiKey(o) })).data);
    });
  agents
    .command('create')
    .description('Create an agent on its voice platform (the account needs an integration for it).')
    .requiredOption('--name <name>', 'agent name, unique in the account')
    .addOption(voicePlatformOption('its voice platform').makeOptionMandatory())
    .option('--language <code>', 'language, e.g. en')
    .option('--system-prompt <text>', 'what the agent is told to do')
    .option('--welcome-message <text>', 'what callers hear first')
    .option('--transfer-number <e164>', 'number to transfer callers to, e.g. +14155550100')
    .option('--recording', 'record calls')
    .option('--idempotency-key <key>', 'makes a retried create safe')
    .addOption(keyOption('agents:write'))
    .action(async (o, cmd) => {
      const opts = cmd.optsWithGlobals();
      const body = {
        name: o.name,
        voice_platform: o.voicePlatform,
        ...(o.language ? { language: o.language } : {}),
        ...(o.systemPrompt ? { system_prompt: o.systemPrompt } : {}),
        ...(o.welcomeMessage ? { welcome_message: o.welcomeMessage } : {}),
        ...(o.transferNumber ? { transfer_number: o.transferNumber } : {}),
        ...(o.recording ? { recording_enabled: true } : {}),
      };
      const headers = o.idempotencyKey ? { 'idempotency-key': o.idempotencyKey } : {};
      printRecord(opts, (await call(opts, 'POST', '/v1/agents', { token: apiKey(o), body, headers })).data);
    });
  for (const [verb, status] of [['pause', 'paused'], ['resume', 'active']]) {
    agents
      .command(`${verb} <id>`)
      .description(verb === 'pause' ? 'Pause an agent (it keeps its number and counts toward the quota).' : 'Resume a paused agent.')
      .addOption(keyOption('agents:write'))
      .action(async (agentId, o, cmd) => {
        const opts = cmd.optsWithGlobals();
        const token = apiKey(o);
        // The update is conditional on the version just read (If-Match), so it never overwrites a change made meanwhile.
        const current = await request(opts, 'GET', `/v1/agents/${id(agentId)}`, { token });
        const etag = current.headers.get('etag');
        const updated = await call(opts, 'PATCH', `/v1/agents/${id(agentId)}`, { token, body: { status }, headers: etag ? { 'if-match': etag } : {} });
        if (wantsJson(opts)) print(updated.data);
        else process.stdout.write(`${updated.data.id} is ${updated.data.status}\n`);
      });
  }
  agents
    .command('delete <id>')
    .description('Delete an agent: removed from its platform, number released, quota freed; its conversations stay.')
    .addOption(keyOption('agents:write'))
    .action(async (agentId, o, cmd) => {
      await call(cmd.optsWithGlobals(), 'DELETE', `/v1/agents/${id(agentId)}`, { token: apiKey(o) });
      process.stdout.write(`deleted ${agentId}\n`);
    });

  const integrations = program.command('integrations').description('Voice-platform credentials of the account behind --api-key.');
  integrations
    .command('list')
    .description('Every integration of the account (secrets are never shown).')
    .addOption(keyOption('integrations:read'))
    .action(async (o, cmd) => {
      const opts = cmd.optsWithGlobals();
      printList(opts, await call(opts, 'GET', '/v1/integrations', { token: apiKey(o) }), INTEGRATION_COLUMNS, 'integrations');
    });
  integrations
    .command('get <platform>')
    .description('The integration of one platform.')
    .addOption(keyOption('integrations:read'))
    .action(async (platform, o, cmd) => {
      const opts = cmd.optsWithGlobals();
      printRecord(opts, (await call(opts, 'GET', `/v1/integrations/${id(platform)}`, { token: apiKey(o) })).data);
    });
  integrations
    .command('set <platform>')
    .description("Create or replace a platform's integration (its credentials are checked with the platform).")
    .requiredOption('--platform-api-key <key>', "the platform's API key")
    .requiredOption('--webhook-secret <secret>', 'the secret the platform signs its webhooks with')
    .option('--base-url <url>', "the platform's API base URL (default: the platform's public one)")
    .addOption(keyOption('integrations:write'))
    .action(async (platform, o, cmd) => {
      const opts = cmd.optsWithGlobals();
      const body = { api_key: o.platformApiKey, webhook_secret: o.webhookSecret, ...(o.baseUrl ? { base_url: o.baseUrl } : {}) };
      printRecord(opts, (await call(opts, 'PUT', `/v1/integrations/${id(platform)}`, { token: apiKey(o), body })).data);
    });
  integrations
    .command('delete <platform>')
    .description('Remove an integration (refused while live agents use the platform).')
    .addOption(keyOption('integrations:write'))
    .action(async (platform, o, cmd) => {
      await call(cmd.optsWithGlobals(), 'DELETE', `/v1/integrations/${id(platform)}`, { token: apiKey(o) });
      process.stdout.write(`deleted the ${platform} integration\n`);
    });

  const conversations = program.command('conversations').description('Conversation records.');
  const exportCommand = conversations
    .command('export')
    .description('Export conversations matching the list filters, as JSON lines or CSV, to stdout.')
    .addOption(new Option('--format <format>', 'output format').choices(['jsonl', 'csv']).default('jsonl'))
    .option('--no-formula-guard', 'CSV: write cells exactly as stored. By default a text cell starting with = + - @, tab or CR gets a leading \' so a spreadsheet shows it instead of running it as a formula (plain numbers such as +14155550123 are never changed)')
    .addOption(new Option('--api-key <key>', 'API key with conversations:read').env('VOICE_API_KEY'));
  const filters = ['agent_id', 'status', 'sentiment', 'outcome', 'caller', 'min_duration', 'max_duration', 'min_cost', 'max_cost', 'start_date', 'end_date', 'has_recording', 'has_transcript', 'search', 'topic', 'sort_by', 'sort_order'];
  const optionName = (f) => f.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
  const filterQuery = (o, extra) => {
    const query = new URLSearchParams(extra);
    for (const f of filters) if (o[optionName(f)] !== undefined) query.set(f, o[optionName(f)]);
    return query;
  };
  for (const f of filters) exportCommand.option(`--${f.replace(/_/g, '-')} <value>`, `list filter ${f}`);
  exportCommand.action(async (o, cmd) => {
    const opts = cmd.optsWithGlobals();
    const query = filterQuery(o, { per_page: '100' });
    const columns = ['id', 'agent_id', 'agent_name', 'caller_number', 'status', 'start_time', 'end_time', 'duration', 'sentiment', 'outcome', 'topics', 'has_recording', 'has_transcript', 'summary', 'created_at'];
    if (o.format === 'csv') process.stdout.write(`${columns.join(',')}\n`);
    let exported = 0;
    for await (const items of allPages(opts, `/v1/conversations?${query}`, apiKey(o))) {
      for (const item of items) {
        process.stdout.write(o.format === 'csv' ? `${columns.map((c) => csvCell(item[c], { formulaGuard: o.formulaGuard })).join(',')}\n` : `${JSON.stringify(item)}\n`);
      }
      exported += items.length;
    }
    process.stderr.write(`exported ${exported} conversations\n`);
  });

  const listCommand = pageOptions(conversations.command('list').description('List conversations (newest first unless --sort-by/--sort-order), one page at a time, with the API\'s filters.'));
  for (const f of filters) listCommand.option(`--${f.replace(/_/g, '-')} <value>`, `list filter ${f}`);
  listCommand.addOption(keyOption('conversations:read')).action(async (o, cmd) => {
    const opts = cmd.optsWithGlobals();
    const query = filterQuery(o, { page: String(o.page), per_page: String(o.perPage) });
    printList(opts, await call(opts, 'GET', `/v1/conversations?${query}`, { token: apiKey(o) }), CONVERSATION_COLUMNS, 'conversations');
  });
  conversations
    .command('get <id>')
    .description('One conversation: the full record.')
    .addOption(keyOption('conversations:read'))
    .action(async (conversationId, o, cmd) => {
      const opts = cmd.optsWithGlobals();
      printRecord(opts, (await call(opts, 'GET', `/v1/conversations/${id(conversationId)}`, { token: apiKey(o) })).data);
    });
  conversations
    .command('transcript <id>')
    .description('The transcript of a conversation: who said what, when (text), or as JSON, SRT or WebVTT.')
    .addOption(new Option('--format <format>', 'text (default on a terminal), json, srt or vtt').choices(['text', 'json', 'srt', 'vtt']))
    .addOption(keyOption('conversations:read'))
    .action(async (conversationId, o, cmd) => {
      const opts = cmd.optsWithGlobals();
      const format = o.format ?? (wantsJson(opts) ? 'json' : 'text');
      const path = `/v1/conversations/${id(conversationId)}/transcript`;
      if (format === 'json') return print((await call(opts, 'GET', path, { token: apiKey(o) })).data);
      const text = await call(opts, 'GET', `${path}?format=${format}`, { token: apiKey(o) });
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    });
  return program;
}

/** A progress bar on a terminal; on a pipe or file, a line at every tenth so logs stay readable. */
function progressReporter(label) {
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar({ format: `${label} [{bar}] {percentage}% {value}/{total}`, stream: process.stderr }, cliProgress.Presets.shades_classic);
    let started = false;
    return {
      update: (done, total) => {
        if (!started) bar.start(total, done);
        started = true;
        bar.update(done);
      },
      stop: () => started && bar.stop(),
    };
  }
  let lastTenth = -1;
  return {
    update: (done, total) => {
      const tenth = total === 0 ? 10 : Math.floor((done / total) * 10);
      if (tenth !== lastTenth) process.stderr.write(`${label}: ${done}/${total}\n`);
      lastTenth = tenth;
    },
    stop: () => undefined,
  };
}

/**
 * One RFC 4180 cell. With the formula guard (the default), text a spreadsheet would
 * evaluate — starting with = + - @, tab or CR — gets a leading ' (OWASP "CSV injection"):
 * summaries, agent names, topics and conversation ids come from API clients and voice
 * platforms. A plain number is left alone: it cannot carry a formula, and E.164 caller
 * numbers (+14155550123) must stay as they are for whoever reads the file.
 */
export function csvCell(value, { formulaGuard = true } = {}) {
  if (value === null || value === undefined) return '';
  let text = Array.isArray(value) ? value.join(';') : String(value);
  if (formulaGuard && /^[=+\-@\t\r]/.test(text) && !/^[+-]?\d+(\.\d+)?$/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await buildProgram().parseAsync(process.argv);
  } catch (err) {
    // Commander has printed help or the usage problem: --help exits 0; a missing
    // (sub)command, an unknown option or a bad value is a usage error.
    if (err.code?.startsWith?.('commander.')) process.exit(err.exitCode === 0 ? 0 : 2);
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(err instanceof CliError ? err.exitCode : 1);
  }
}
