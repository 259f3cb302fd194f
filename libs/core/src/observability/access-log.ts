import { performance } from 'node:perf_hooks';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { HttpMetrics } from './http-metrics';
import { REQUEST_ID_HEADER, requestIdFor } from './request-id';
import type { ShutdownState } from './shutdown-state';

/** What an authenticated request carries (set by the API-key or bearer-token guard). */
interface LoggedPrincipal {
  companyId?: string;
  keyPrefix?: string;
  subject?: string;
}

type ServedRequest = Omit<Request, 'id' | 'log'> & { id?: string; log?: Logger; principal?: LoggedPrincipal };

// nginx's code for a response the client hung up on before it was sent.
const CLIENT_CLOSED = 499;

/**
 * The first middleware of the app: the request's access line (`accessLine`), and a logger that
 * stamps the request's id on each line logged while serving it.
 */
export function accessLog(root: Logger, metrics: HttpMetrics, shutdown: ShutdownState) {
  const started = accessLine(root, metrics, shutdown);
  return (request: Request, res: Response, next: NextFunction): void => {
    const req = request as unknown as ServedRequest;
    // Started already by a route served ahead of Express that hands its error on to Express.
    if (req.id === undefined) started(request, res);
    req.log ??= root.child({ reqId: req.id });
    next();
  };
}

/**
 * Gives the request its id (echoed in `X-Request-Id` on every response, errors and 429s
 * included) and, once the response is done, one access line and its duration sample. The line
 * holds only the fields below: never headers, a query string or a body, where keys, tokens and
 * personal data travel. A route served ahead of Express calls it alone: it makes no logger.
 */
export function accessLine(root: Logger, metrics: HttpMetrics, shutdown: ShutdownState) {
  return (request: Request, res: Response): void => {
    const req = request as unknown as ServedRequest;
    const started = performance.now();
    const id = requestIdFor(req.headers['x-request-id']);
    req.id = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    // While draining, a kept-alive client is told to reconnect, reaching an instance that stays.
    if (shutdown.draining) res.setHeader('Connection', 'close');
    res.once('close', () => {
      const durationMs = performance.now() - started;
      const status = res.writableFinished ? res.statusCode : CLIENT_CLOSED;
      // The route template (`/v1/contacts/:id`), never the path with its ids.
      const route = (req.route as { path?: string } | undefined)?.path ?? null;
      metrics.observe(req.method, route, status, durationMs / 1000);
      const principal = req.principal;
      // The request's logger when it has one; the same line without making one otherwise.
      (req.log ?? root)[status >= 500 ? 'error' : 'info'](
        {
          ...(req.log ? {} : { reqId: id }),
          method: req.method,
          route,
          status,
          durationMs: Math.round(durationMs * 10) / 10,
          companyId: principal?.companyId,
          keyPrefix: principal?.keyPrefix,
          subject: principal?.subject,
        },
        'request',
      );
    });
  };
}
