#!/usr/bin/env node
// The npm registry reachable here does not serve every platform's prebuilt binary
// (e.g. @swc/core-darwin-arm64): `npm install` skips those optional packages and
// writes no lock entry for them, and `npm ci` then calls the lock out of sync.
// This adds the entry a lock made against the full registry would have — an
// optional package with the os/cpu its name declares — so `npm ci` skips it on
// other platforms. Only missing *optional* dependencies are touched.
import { readFileSync, writeFileSync } from 'node:fs';

const path = process.argv[2] ?? 'package-lock.json';
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openharmony', 'netbsd', 'openbsd', 'sunos', 'aix'];
const CPU = [
  [/(^|-)(arm64|aarch64)(-|$)/, 'arm64'],
  [/(^|-)x64(-|$)/, 'x64'],
  [/(^|-)ia32(-|$)/, 'ia32'],
  [/(^|-)arm(-|$)/, 'arm'],
  [/(^|-)ppc64(le)?(-|$)/, 'ppc64'],
  [/(^|-)s390x(-|$)/, 's390x'],
  [/(^|-)loong64(-|$)/, 'loong64'],
  [/(^|-)riscv64(-|$)/, 'riscv64'],
];

function platformOf(name) {
  const base = name.split('/').pop();
  const os = OS.find((o) => new RegExp(`(^|-)${o}(-|$)`).test(base));
  const cpu = CPU.find(([re]) => re.test(base))?.[1];
  const libc = /(^|-)musl/.test(base) ? 'musl' : /(^|-)gnu/.test(base) ? 'glibc' : undefined;
  return { os, cpu, libc };
}

const added = [];
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    // npm resolves a dependency next to its parent first, then at the top level.
    const nested = `${location ? `${location}/` : ''}node_modules/${name}`;
    if (packages[nested] || packages[`node_modules/${name}`]) continue;
    const { os, cpu, libc } = platformOf(name);
    if (!os || !cpu || !/^\d+\.\d+\.\d+/.test(spec)) continue; // not a platform binary with an exact version: leave it to npm
    packages[`node_modules/${name}`] = {
      version: spec,
      cpu: [cpu],
      ...(entry.dev ? { dev: true } : {}),
      ...(libc ? { libc: [libc] } : {}),
      optional: true,
      os: [os],
    };
    added.push(`${name}@${spec}`);
  }
}

if (added.length) {
  lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
  writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(`complete-lockfile: added ${added.length} optional platform entries the registry does not serve`);
}
