// SQLSTATE classes and codes that mean "the database cannot serve now", not "this request is wrong":
// connection exceptions (08), too many connections, admin/crash shutdown, cannot connect now
// (starting up or in recovery), a statement cancelled by statement_timeout, and a read-only
// transaction (a failover left us on a standby).
const UNAVAILABLE_CODES = new Set(['53300', '53400', '57P01', '57P02', '57P03', '57014', '25006']);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
]);
/** node-postgres's error for a statement the server did not answer within query_timeout. */
export const QUERY_READ_TIMEOUT = 'Query read timeout';

// node-postgres reports a lost connection and a pool acquire timeout only in its message.
const UNAVAILABLE_MESSAGES = [
  /Connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error/i,
  /Connection closed|connection is closed/i,
  new RegExp(QUERY_READ_TIMEOUT, 'i'),
];

/** Seconds a client is told to wait (Retry-After) before trying again after an outage answer. */
export const OUTAGE_RETRY_AFTER_SECONDS = 1;

/**
 * True when `error` (a TypeORM or node-postgres error, possibly wrapped) says the database is
 * unreachable, overloaded, shutting down, failing over or too slow: the request may succeed if
 * sent again, so it is answered 503, not 500.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  const { code, message, driverError, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (
    typeof code === 'string' &&
    (UNAVAILABLE_CODES.has(code) || code.startsWith('08') || NETWORK_CODES.has(code))
  ) {
    return true;
  }
  // TypeORM releases a transaction's connection when the server ends its session; the next
  // statement of that transaction then fails with this error instead of the connection's.
  if ((error as { name?: unknown }).name === 'QueryRunnerAlreadyReleasedError') return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message)))
    return true;
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(driverError, depth + 1) || isDatabaseUnavailable(cause, depth + 1);
}
