#!/usr/bin/env node
// Operator CLI: `npm run cli -- <command> --help`. Talks to a running service over
// its HTTP API (admin token or API key), except `projections rebuild`, which works
// on the database directly like a migration does.
import { Command, InvalidArgumentError, Option } from 'commander';
import cliProgress from 'cli-progress';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

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

function adminToken(opts) {
  const token = opts.adminToken ?? process.env.ADMIN_TOKEN;
  if (token) return token;
  const file = join(root, process.env.DATA_DIR ?? '.data', 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new CliError('no admin token: pass --admin-token or set ADMIN_TOKEN', 2);
}

function apiKey(opts) {
  const key = opts.apiKey ?? process.env.VOICE_API_KEY;
  if (!key) throw new CliError('no API key: pass --api-key or set VOICE_API_KEY', 2);
  return key;
}

async function call(opts, method, path, { token, body, accept } = {}) {
  const url = new URL(path, opts.url);
  let res;
  try {
    res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(accept ? { accept } : {}),
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
    throw new CliError(e ? `${res.status} ${e.code}: ${e.message}${e.field ? ` (field ${e.field})` : ''}` : `${res.status} ${text}`, res.status >= 500 ? 3 : 1);
  }
  return json ?? text;
}

const print = (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

export function buildProgram() {
  const program = new Command('cli')
    .description('Operate the voice agent operations service.')
    .addOption(new Option('--url <url>', 'base URL of the service').env('VOICE_API_URL').default('http://127.0.0.1:3000'))
    .showHelpAfterError()
    .exitOverride();

  const accounts = program.command('accounts').description('Accounts (admin token).');
  accounts
    .command('create')
    .description('Create an account and print its first API key (shown once).')
    .requiredOption('--name <name>', 'account name')
    .option('--plan <plan>', 'plan label', 'starter')
    .option('--agent-limit <n>', 'most agents the account may have', positiveInt, 10)
    .option('--platforms <list>', 'configured voice platforms, comma-separated', 'platform_a,platform_b')
    .option('--admin-token <token>', 'admin token (default: ADMIN_TOKEN, or .data/admin-token)')
    .action(async (o, cmd) => {
      const opts = { ...cmd.optsWithGlobals() };
      print(
        (await call(opts, 'POST', '/v1/admin/accounts', {
          token: adminToken(o),
          body: { name: o.name, plan: o.plan, agent_limit: o.agentLimit, voice_platforms: o.platforms.split(',').map((s) => s.trim()).filter(Boolean) },
        })).data,
      );
    });

  const keys = program.command('keys').description('API keys of the account behind --api-key.');
  const keyOption = () => new Option('--api-key <key>', 'API key with api_keys:write').env('VOICE_API_KEY');
  keys
    .command('create')
    .description('Create a key with the given scopes (a subset of the calling key’s).')
    .requiredOption('--scopes <list>', 'comma-separated, e.g. conversations:read,agents:read')
    .option('--name <name>', 'a label for the key')
    .addOption(keyOption())
    .action(async (o, cmd) => {
      const body = { scopes: o.scopes.split(',').map((s) => s.trim()).filter(Boolean), ...(o.name ? { name: o.name } : {}) };
      print((await call(cmd.optsWithGlobals(), 'POST', '/v1/api-keys', { token: apiKey(o), body })).data);
    });
  keys
    .command('list')
    .description('List keys (never their secrets).')
    .addOption(keyOption())
    .action(async (o, cmd) => print((await call(cmd.optsWithGlobals(), 'GET', '/v1/api-keys', { token: apiKey(o) })).data));
  keys
    .command('revoke <id>')
    .description('Revoke a key at once.')
    .addOption(keyOption())
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
    .action((args) => {
      const result = spawnSync(process.execPath, [join(root, 'scripts', 'simulate.mjs'), ...args], { stdio: 'inherit' });
      if (result.status) throw new CliError(`simulator exited with ${result.status}`, result.status);
    });

  const projections = program.command('projections').description('Read models built from the event stores.');
  projections
    .command('rebuild')
    .description('Rebuild the conversations read model from its event store, then check it equals the old one.')
    .argument('<name>', 'projection name: conversations')
    .addOption(new Option('--database-url <url>', 'PostgreSQL URL').env('DATABASE_URL'))
    .option('--swap', 'replace the live read model with the rebuilt one when they differ', false)
    .action(async (name, o) => {
      if (name !== 'conversations') throw new CliError(`unknown projection "${name}" (known: conversations)`, 2);
      if (!o.databaseUrl) throw new CliError('no database: pass --database-url or set DATABASE_URL', 2);
      const { rebuildConversationsProjection } = await import(pathToFileURL(join(root, 'scripts', 'rebuild-projection.mjs')).href);
      const progress = progressReporter('re-folding conversation streams');
      const report = await rebuildConversationsProjection({ databaseUrl: o.databaseUrl, swap: o.swap, onProgress: progress.update });
      progress.stop();
      print(report);
      if (!report.identical && !o.swap) throw new CliError('the rebuilt read model differs from the live one (run with --swap to replace it)', 4);
    });

  const conversations = program.command('conversations').description('Conversation records.');
  const exportCommand = conversations
    .command('export')
    .description('Export conversations matching the list filters, as JSON lines or CSV, to stdout.')
    .addOption(new Option('--format <format>', 'output format').choices(['jsonl', 'csv']).default('jsonl'))
    .addOption(new Option('--api-key <key>', 'API key with conversations:read').env('VOICE_API_KEY'));
  const filters = ['agent_id', 'status', 'sentiment', 'outcome', 'caller', 'min_duration', 'max_duration', 'start_date', 'end_date', 'has_recording', 'has_transcript', 'search', 'topic', 'sort_by', 'sort_order'];
  for (const f of filters) exportCommand.option(`--${f.replace(/_/g, '-')} <value>`, `list filter ${f}`);
  exportCommand.action(async (o, cmd) => {
    const opts = cmd.optsWithGlobals();
    const query = new URLSearchParams({ per_page: '100' });
    for (const f of filters) {
      const v = o[f.replace(/_([a-z])/g, (_, c) => c.toUpperCase())];
      if (v !== undefined) query.set(f, v);
    }
    const columns = ['id', 'agent_id', 'agent_name', 'caller_number', 'status', 'start_time', 'end_time', 'duration', 'sentiment', 'outcome', 'topics', 'has_recording', 'has_transcript', 'summary', 'created_at'];
    if (o.format === 'csv') process.stdout.write(`${columns.join(',')}\n`);
    let path = `/v1/conversations?${query}`;
    let exported = 0;
    while (path) {
      const page = await call(opts, 'GET', path, { token: apiKey(o) });
      for (const item of page.data) {
        process.stdout.write(o.format === 'csv' ? `${columns.map((c) => csvCell(item[c])).join(',')}\n` : `${JSON.stringify(item)}\n`);
      }
      exported += page.data.length;
      path = page.links?.next ?? null;
    }
    process.stderr.write(`exported ${exported} conversations\n`);
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

export function csvCell(value) {
  if (value === null || value === undefined) return '';
  const text = Array.isArray(value) ? value.join(';') : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await buildProgram().parseAsync(process.argv);
  } catch (err) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.help' || err.code === 'commander.version') process.exit(0);
    if (err.code?.startsWith?.('commander.')) process.exit(2);
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(err instanceof CliError ? err.exitCode : 1);
  }
}
