import { parseArgs } from 'node:util';
import type { StartSimulatorsOptions } from './start-simulators.js';

export const CLI_USAGE = `Usage: node tools/platform-simulators/dist/main.js [options]

Starts the platform_a and platform_b simulators and prints their base URLs.

  --port-a <port>          platform_a port (default 4010; 0 = any free port)
  --port-b <port>          platform_b port (default 4020; 0 = any free port)
  --host <host>            address to listen on (default 127.0.0.1)
  --api-key <key>          a valid bearer key; repeat for several (default sim-api-key)
  --webhook-secret <text>  secret call webhooks are signed with (default sim-webhook-secret)
  --state-dir <dir>        keep agents and numbers in <dir>/platform-a.json and platform-b.json
                           across restarts (default: in memory only)
  --help                   this text

The control API of each simulator is under <base URL>/__sim (GET it for its routes).`;

export type CliCommand = { help: true } | { help: false; options: StartSimulatorsOptions };

/** Reads the command line; throws with a readable message on a bad option. */
export function parseCliArguments(argv: string[]): CliCommand {
  const { values } = parseArgs({
    args: argv,
    options: {
      'port-a': { type: 'string', default: '4010' },
      'port-b': { type: 'string', default: '4020' },
      host: { type: 'string', default: '127.0.0.1' },
      'api-key': { type: 'string', multiple: true },
      'webhook-secret': { type: 'string' },
      'state-dir': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return { help: true };
  return {
    help: false,
    options: {
      portA: port(values['port-a'], '--port-a'),
      portB: port(values['port-b'], '--port-b'),
      host: values.host,
      apiKeys: values['api-key'],
      webhookSecret: values['webhook-secret'],
      stateDir: values['state-dir'],
    },
  };
}

function port(value: string | undefined, flag: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value ?? '') || number > 65_535) throw new Error(`${flag} must be a port number from 0 to 65535, got ${value}`);
  return number;
}
