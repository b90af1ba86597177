#!/usr/bin/env node
// `npm run bench:http` — what the HTTP framework costs: the same JSON page (a list page's size) from
// node:http, from a Nest app on Express and from a Nest app on Fastify (the gateway's adapter), each in a
// process of its own, driven by autocannon (10 connections) in the same run. No database, no bus: the
// difference between the rows is the framework alone, a bound on what switching adapters could gain.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeBenchmarkSection } from './support.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const quick = process.argv.includes('--quick');
const cpuSeconds = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};

const rows = [];
for (const kind of ['raw', 'express', 'fastify']) {
  const child = spawn(process.execPath, [join(here, 'http-adapters', 'server.mjs'), kind], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((ok, fail) => {
    child.stdout.on('data', (d) => { const m = /listening (\d+)/.exec(String(d)); if (m) ok(Number(m[1])); });
    child.once('exit', (code) => fail(new Error(`${kind} server exited (${code})`)));
  });
  const url = `http://127.0.0.1:${port}/v1/ping`;
  await autocannon({ url, connections: 10, duration: 1 }); // warm-up
  const before = cpuSeconds(child.pid);
  const r = await autocannon({ url, connections: 10, duration: quick ? 2 : SECONDS });
  const cpuMs = ((cpuSeconds(child.pid) - before) * 1000) / r.requests.total;
  if (r.non2xx + r.errors > 0) throw new Error(`${kind}: ${r.non2xx + r.errors} failed requests`);
  rows.push({ kind, perSecond: r.requests.total / (quick ? 2 : SECONDS), p50: r.latency.p50, p99: r.latency.p99, cpuMs });
  child.removeAllListeners('exit');
  child.kill();
  console.error(`[bench:http] ${kind}: ${rows.at(-1).perSecond.toFixed(0)} req/s, ${cpuMs.toFixed(3)} ms CPU per request`);
}
const raw = rows[0];
const label = { raw: 'node:http (baseline)', express: 'Nest + Express', fastify: 'Nest + Fastify (the gateway)' };
const section = [
  '## HTTP framework cost (Express vs Fastify)',
  '',
  `**Nest on Express serves ${(rows[1].perSecond / raw.perSecond).toFixed(2)}× node:http's throughput, Nest on Fastify ${(rows[2].perSecond / raw.perSecond).toFixed(2)}× — Fastify saves ${(rows[1].cpuMs - rows[2].cpuMs).toFixed(3)} ms of CPU per request.**`,
  '',
  `Command: \`npm run bench:http\`. Run on ${new Date().toISOString()}: the same ~8 KB JSON page, ${SECONDS} s per server after 1 s of warm-up, autocannon with 10 connections, each server its own process.`,
  '',
  '| server | req/s | p50 ms | p99 ms | CPU ms per request | throughput vs node:http |',
  '|---|---:|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${label[r.kind]} | ${r.perSecond.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.cpuMs.toFixed(3)} | ${(r.perSecond / raw.perSecond).toFixed(2)} |`),
].join('\n');
console.log(section);
if (!quick) writeBenchmarkSection('http-adapters', section);
