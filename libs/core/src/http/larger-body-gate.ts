import type { NextFunction, Request, Response } from 'express';
import { OUTAGE_RETRY_AFTER_SECONDS } from '../database/database-outage';

/**
 * Bounds how many requests with a large body (over `smallBytes`, or of unknown length) a route
 * serves at once in this process. Each is read whole and parsed, and a hundred 1 MB event batches
 * at once take more memory than the heap allows: the process would stop, for every client. Past
 * `maxInFlight`, a request is answered 503 with Retry-After before its body is read, like any
 * other overload; small bodies are never held back.
 */
export function largerBodyGate(path: RegExp, maxInFlight: number, smallBytes: number) {
  let inFlight = 0;
  return (req: Request, res: Response, next: NextFunction): void => {
    const length = req.headers['content-length'];
    const large =
      length === undefined ? req.headers['transfer-encoding'] !== undefined : !(Number(length) <= smallBytes);
    if (!large || !path.test(req.url ?? '')) return next();
    if (inFlight >= maxInFlight) {
      res
        .status(503)
        .set('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS))
        .json({ error: 'Service unavailable', status: 503 });
      return;
    }
    inFlight++;
    res.once('close', () => inFlight--);
    next();
  };
}
