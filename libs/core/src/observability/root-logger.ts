import pino, { DestinationStream, Logger, LoggerOptions } from 'pino';
import type { EnvironmentVariables } from '../config/env.validation';

// Nest's level names, mapped to pino's.
const PINO_LEVELS: Record<string, string> = {
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

/**
 * The process's one logger: a JSON object per line, or readable lines when a developer's terminal
 * shows them. `destination` replaces stdout (tests capture the lines).
 */
export function createRootLogger(
  env: Pick<EnvironmentVariables, 'NODE_ENV' | 'LOG_LEVEL'>,
  destination?: DestinationStream,
): Logger {
  const options: LoggerOptions = {
    level: PINO_LEVELS[env.LOG_LEVEL] ?? 'info',
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  if (destination) return pino(options, destination);
  if (env.NODE_ENV === 'development' && process.stdout.isTTY && prettyAvailable()) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true } } });
  }
  // Asynchronous writes keep the access line off the request's path, gathered into writes of 4 kB
  // (a write a line cost as much as the request) and at most 100 ms late; flushed on exit.
  return pino(options, pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 100 }));
}

// pino-pretty is a development dependency: a production image runs without it.
function prettyAvailable(): boolean {
  try {
    require.resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}
