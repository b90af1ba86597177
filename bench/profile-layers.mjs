#!/usr/bin/env node
// `node bench/profile-layers.mjs <app.cpuprofile> gateway|service [<from µs> <to µs> [<requests>]]` — where a process's
// time went, by layer, in a window of a V8 CPU profile: the window and request count are what
// `BENCH_ONLY=fixed-agent BENCH_CPU_PROF=<dir> node bench/stack.bench.mjs` prints (windowUs, requests; the profile's
// clock is the monotonic one the bench reads). Each sample goes to the first frame, from the leaf up, that a rule
// below names; Node's own frames (sockets, streams) count only when no package or app frame above them is named, so a
// socket write counts for whoever wrote (HTTP reply, NATS, pg). Sampled time includes time spent in system calls and
// time the thread waited for a core: read the shares, and take the microseconds from /proc (the bench's figures).
import { readFileSync } from 'node:fs';

const [file, kind, from, to, requestsArg] = process.argv.slice(2);
const RULES = {
  gateway: [
    ['logging', /\/(pino|sonic-boom|pino-std-serializers|fast-redact|quick-format-unescaped|on-exit-leak-free|atomic-sleep)\/|service-kit\/dist\/logging\/logging\.js/],
    ['auth (key lookup and its cache, access guard)', /api-gateway\/dist\/(auth|caching)\/|node:internal\/crypto/],
    ['rate limiter', /api-gateway\/dist\/rate-limits\//],
    ['envelope, reply body', /api-gateway\/dist\/http\/(envelope|prepared-answer|write-error)\.js/],
    ['RPC client (NATS)', /@nats-io\/|nats-core|@nestjs\/microservices\/|api-gateway\/dist\/rpc\/|service-kit\/dist\/bus\//],
    ['gateway database (pg, TypeORM)', /\/(pg|pg-protocol|pg-pool|pg-types|typeorm)\//],
    ['Nest (router, guards, interceptors)', /@nestjs\/(core|common|platform-fastify)\/|reflect-metadata|\/rxjs\//],
    ['HTTP (Fastify, node:http, sockets)', /\/(fastify|find-my-way|avvio|@fastify\/[^/]+|fast-json-stringify|light-my-request|fast-querystring|secure-json-parse|toad-cache)\/|api-gateway\/dist\/http\/|node:_http|node:net|node:internal\/stream_base_commons/],
    ['other gateway code', /api-gateway\/dist\//],
  ],
  service: [
    ['logging', /\/(pino|sonic-boom|pino-std-serializers|fast-redact|quick-format-unescaped)\/|service-kit\/dist\/logging\/logging\.js/],
    ['transport (NATS, reply)', /@nats-io\/|nats-core|@nestjs\/microservices\/|service-kit\/dist\/bus\//],
    ['pg (driver, TypeORM, read router)', /\/(pg|pg-protocol|pg-pool|pg-types|typeorm)\/|service-kit\/dist\/database\/|node:net|node:internal\/stream_base_commons/],
    ['Nest dispatch (pipes, interceptors, rxjs)', /@nestjs\/(core|common|cqrs)\/|reflect-metadata|\/rxjs\/|class-validator|class-transformer/],
    ['handler (slice code, contracts)', /-service\/dist\/|contracts\/dist\//],
  ],
}[kind];
if (!file || !RULES) throw new Error('usage: profile-layers.mjs <file.cpuprofile> gateway|service [fromUs toUs [requests]]');

const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);

/** Sampled µs per leaf node inside the window. */
const selfUs = new Map();
let clock = profile.startTime;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  clock += delta;
  if (from !== undefined && (clock < Number(from) || clock > Number(to))) return;
  selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
});

function layerOf(id) {
  const leaf = nodes.get(id).callFrame;
  if (leaf.functionName === '(idle)') return 'idle';
  if (leaf.functionName === '(garbage collector)') return 'garbage collector';
  for (const withNodeInternals of [false, true]) {
    for (let current = id; current !== undefined; current = parent.get(current)) {
      const { url } = nodes.get(current).callFrame;
      if (!withNodeInternals && url.startsWith('node:')) continue;
      for (const [name, pattern] of RULES) if (pattern.test(url)) return name;
    }
  }
  return 'other (V8, microtask queue, unnamed code)';
}

const byLayer = new Map();
let busy = 0;
for (const [id, us] of selfUs) {
  const layer = layerOf(id);
  if (layer === 'idle') continue;
  byLayer.set(layer, (byLayer.get(layer) ?? 0) + us);
  busy += us;
}
const requests = Number(requestsArg ?? 0);
console.log(`${file}: ${(busy / 1e6).toFixed(2)} s sampled busy${requests ? ` over ${requests} requests (${(busy / requests).toFixed(0)} µs each)` : ''}`);
for (const [layer, us] of [...byLayer].sort((a, b) => b[1] - a[1])) {
  console.log(`${((100 * us) / busy).toFixed(1).padStart(5)} %  ${requests ? `${(us / requests).toFixed(0).padStart(5)} µs  ` : ''}${layer}`);
}
