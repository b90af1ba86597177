#!/usr/bin/env node
import { CLI_USAGE, parseCliArguments, type CliCommand } from './cli-arguments.js';
import { startSimulators } from './start-simulators.js';

let command: CliCommand;
try {
  command = parseCliArguments(process.argv.slice(2));
} catch (error) {
  console.error(`${(error as Error).message}\n\n${CLI_USAGE}`);
  process.exit(2);
}
if (command.help) {
  console.log(CLI_USAGE);
  process.exit(0);
}

const simulators = await startSimulators(command.options);
console.log(`platform_a ${simulators.urls.platformA} (control API ${simulators.urls.platformA}/__sim)`);
console.log(`platform_b ${simulators.urls.platformB} (control API ${simulators.urls.platformB}/__sim)`);
console.log(`api keys: ${simulators.platformA.getApiKeys().join(', ')}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void simulators.stop().then(() => process.exit(0));
  });
}
