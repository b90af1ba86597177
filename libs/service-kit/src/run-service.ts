import { ConfigError, readConfig, type ConfigReader } from './config.js';
import { createLogger } from './logging.js';

export interface Closeable {
  close(): Promise<void>;
}

/**
 * The process entry point of every app: read the configuration (reading it and
 * calling `config.done()` is `boot`'s job), start, log readiness, and shut down
 * once on SIGINT/SIGTERM. Bad configuration prints its message and exits 1
 * without a stack trace; any other start-up failure is logged as fatal.
 */
export function runService(name: string, boot: (config: ConfigReader) => Promise<{ service: Closeable; details?: Record<string, unknown> }>): void {
  const logger = createLogger(name);
  boot(readConfig(process.env))
    .then(({ service, details }) => {
      logger.info(details ?? {}, `${name} ready`);
      let stopping = false;
      const stop = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, `${name} stopping`);
        await service.close();
        process.exit(0);
      };
      process.on('SIGINT', () => void stop('SIGINT'));
      process.on('SIGTERM', () => void stop('SIGTERM'));
    })
    .catch((err: unknown) => {
      if (err instanceof ConfigError) console.error(err.message);
      else logger.fatal({ err }, `${name} failed to start`);
      process.exit(1);
    });
}
