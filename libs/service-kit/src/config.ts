/**
 * Environment configuration, checked at start: every problem is reported at
 * once with the variable's name, instead of a stack trace later.
 */
export class ConfigError extends Error {}

export interface ConfigReader {
  string(name: string, fallback?: string): string;
  optionalString(name: string): string | undefined;
  int(name: string, fallback: number, range?: { min?: number; max?: number }): number;
  url(name: string, protocols: string[], fallback?: string): string;
  /** Throws one ConfigError listing every problem found. */
  done(): void;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): ConfigReader {
  const problems: string[] = [];
  const reader: ConfigReader = {
    string(name, fallback) {
      const value = env[name]?.trim() || fallback;
      if (value === undefined) problems.push(`${name} is required`);
      return value ?? '';
    },
    optionalString(name) {
      return env[name]?.trim() || undefined;
    },
    int(name, fallback, range = {}) {
      const raw = env[name]?.trim();
      if (!raw) return fallback;
      const value = Number(raw);
      if (!Number.isInteger(value) || (range.min !== undefined && value < range.min) || (range.max !== undefined && value > range.max)) {
        problems.push(`${name} must be an integer${range.min !== undefined ? ` >= ${range.min}` : ''}${range.max !== undefined ? ` <= ${range.max}` : ''} (got "${raw}")`);
        return fallback;
      }
      return value;
    },
    url(name, protocols, fallback) {
      const value = env[name]?.trim() || fallback;
      if (!value) {
        problems.push(`${name} is required (${protocols.join(' or ')} URL)`);
        return '';
      }
      for (const part of value.split(',')) {
        try {
          const parsed = new URL(part);
          if (!protocols.includes(parsed.protocol.replace(/:$/, ''))) throw new Error('protocol');
        } catch {
          problems.push(`${name} must be a ${protocols.join(' or ')} URL (got "${value}")`);
          break;
        }
      }
      return value;
    },
    done() {
      if (problems.length) throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    },
  };
  return reader;
}
