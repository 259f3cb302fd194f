import type { NextFunction, Request, Response } from 'express';
import { ServiceOverloadedError } from '../errors/domain.exception';

/** A large body must have arrived whole this long after its headers (1 MB at 17 kB/s). */
export const LARGE_BODY_TIMEOUT_MS = 60_000;

/**
 * Bounds how many requests with a large body (over `smallBytes`, or of unknown length) a route
 * serves at once in this process. Each is read whole and parsed, and a hundred 1 MB event batches
 * at once take more memory than the heap allows: the process would stop, for every client. Past
 * `maxInFlight`, a request is refused (ServiceOverloadedError: 503 with Retry-After) before its
 * body is read; small bodies are never held back. A large body still arriving after
 * `bodyTimeoutMs` is cut (its connection closed), so slow senders cannot keep the places forever.
 */
export function largerBodyGate(
  path: RegExp,
  maxInFlight: number,
  smallBytes: number,
  bodyTimeoutMs = LARGE_BODY_TIMEOUT_MS,
) {
  let inFlight = 0;
  return (req: Request, res: Response, next: NextFunction): void => {
    const length = req.headers['content-length'];
    const large =
      length === undefined ? req.headers['transfer-encoding'] !== undefined : !(Number(length) <= smallBytes);
    if (!large || !path.test(req.url ?? '')) return next();
    if (inFlight >= maxInFlight) {
      return next(new ServiceOverloadedError(`${maxInFlight} large bodies already being read`));
    }
    inFlight++;
    const cut = setTimeout(() => {
      if (!req.complete) req.destroy();
    }, bodyTimeoutMs);
    res.once('close', () => {
      clearTimeout(cut);
      inFlight--;
    });
    next();
  };
}
