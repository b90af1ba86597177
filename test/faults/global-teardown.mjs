// The combined table of the run, so the whole result can be quoted from the end of the output.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

export default function teardown() {
  const file = process.env.FAULT_RESULTS_FILE;
  if (!file || !existsSync(file)) return;
  const rows = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const columns = ['scenario', 'via', 'sent', 'acked', 'stored', 'lost', 'duplicated', 'unexpected', 'listed', 'detail_bad', 'rebuild', 'recovery_ms', 'converge_ms', 'client_retries'];
  const cells = rows.map((r) => columns.map((c) => String(r[c] ?? '')));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
  const line = (values) => `| ${values.map((v, i) => v.padEnd(widths[i])).join(' | ')} |`;
  const seconds = ((Date.now() - Number(process.env.FAULT_SUITE_STARTED)) / 1000).toFixed(0);
  process.stdout.write(`\nFault suite — all scenarios (${seconds} s)\n${[line(columns), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n')}\n`);
  rmSync(dirname(file), { recursive: true, force: true });
}
