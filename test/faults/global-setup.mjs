// Every fault spec appends its table rows here (test/faults/support/check.ts `report`); the teardown prints them all.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup() {
  process.env.FAULT_RESULTS_FILE = join(mkdtempSync(join(tmpdir(), 'fault-suite-')), 'rows.jsonl');
  process.env.FAULT_SUITE_STARTED = String(Date.now());
}
