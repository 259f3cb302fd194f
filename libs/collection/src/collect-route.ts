import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import proxyaddr from 'proxy-addr';
import { accessLine, HttpMetrics, RateLimitExceededError, ROOT_LOGGER, ShutdownState } from '@app/core';
import { browserOf } from './browser-request';
import { CollectService, MAX_BROWSER_BODY_BYTES } from './collect.service';
import { OriginNotAllowedError } from './collection-door';

/** The route template, as the access log and the request metrics name it. */
const COLLECT_ROUTE = '/v1/funnels/:funnelId/collect';
// Matched as Express matches the controller's route: any case, an optional trailing slash.
const COLLECT_PATH = /^\/v1\/funnels\/([^/?]+)\/collect\/?(?:\?|$)/i;
// A beacon's body: text/plain in UTF-8 (the parser's default), not compressed.
const BEACON_TYPE = /^text\/plain\s*(?:;\s*charset="?utf-8"?\s*)?$/i;

/** A collect request's error, raised before Express saw it, for Express to answer. */
const HANDED_ON = new WeakMap<IncomingMessage, unknown>();

/**
 * `POST /v1/funnels/{funnelId}/collect`, the service's most frequent request (a page's beacons),
 * served ahead of Express and Nest: a public route uses none of the guards, pipes and interceptors
 * every other route passes through. The usual beacon (a small text/plain body of declared
 * length) is read and answered here, with the app's access log; any other body, and every error,
 * goes on to Express, whose parsers, limits and exception filter answer it in the documented
 * shape (`collectRoute`). One work for both: `serveCollect`.
 */
export function serveCollectFirst(app: NestExpressApplication): void {
  const server = app.getHttpServer() as Server;
  const express = app.getHttpAdapter().getInstance() as { get(setting: string): unknown };
  const collector = app.get(CollectService);
  const logged = accessLine(app.get(ROOT_LOGGER), app.get(HttpMetrics), app.get(ShutdownState));
  const listeners = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  const onward = (req: IncomingMessage, res: ServerResponse) => {
    for (const listener of listeners) listener.call(server, req, res);
  };
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const funnelId = isBeacon(req) ? funnelOf(req.url as string) : undefined;
    if (funnelId === undefined) return onward(req, res);
    logged(req as unknown as Request, res as unknown as Response);
    (req as { route?: object }).route = { path: COLLECT_ROUTE };
    readText(req).then(
      (text) => {
        const address = proxyaddr(req, express.get('trust proxy fn') as (addr: string, i: number) => boolean);
        const browser = browserOf(req.headers, address);
        withCors(res, browser.origin, () => collector.collect(funnelId, browser, text)).then(
          () => {
            res.statusCode = 202;
            res.end();
          },
          (error: unknown) => {
            // Express answers it: the body is read (its parsers pass), the access line is started.
            (req as { body?: unknown }).body = text;
            HANDED_ON.set(req, error);
            onward(req, res);
          },
        );
      },
      () => res.destroy(),
    );
  });
}

function isBeacon(req: IncomingMessage): boolean {
  const length = Number(req.headers['content-length']);
  return (
    req.method === 'POST' &&
    length > 0 &&
    length <= MAX_BROWSER_BODY_BYTES &&
    req.headers['transfer-encoding'] === undefined &&
    req.headers['content-encoding'] === undefined &&
    BEACON_TYPE.test(req.headers['content-type'] ?? '')
  );
}

/** The funnel id of a collect URL; undefined for any other URL, or an id Express would refuse to decode. */
function funnelOf(url: string): string | undefined {
  const match = COLLECT_PATH.exec(url);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}

/** The whole body as text (its length is declared and small). */
function readText(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.once('end', () => resolve(text));
    req.once('error', reject);
  });
}

/**
 * The collect route in Express (mounted after the body parsers, before Nest's router): a body the
 * front door left to it, or the error the front door raised.
 */
export function collectRoute(collector: CollectService) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (HANDED_ON.has(req)) return next(HANDED_ON.get(req));
    const funnelId = req.method === 'POST' ? funnelOf(req.url) : undefined;
    if (funnelId === undefined) return next();
    (req as { route?: object }).route = { path: COLLECT_ROUTE };
    serveCollect(collector, funnelId, req, res).then(() => res.status(202).end(), next);
  };
}

/** The collect route's work: the events of `req`'s body, answered with the page's CORS headers. */
export function serveCollect(
  collector: CollectService,
  funnelId: string,
  req: Request,
  res: Response,
): Promise<void> {
  const browser = browserOf(req.headers, req.ip ?? req.socket.remoteAddress);
  return withCors(res, browser.origin, () => collector.collect(funnelId, browser, req.body));
}

/** What the CORS headers are set on: Express's response or Node's. */
type Headed = { setHeader(name: string, value: string): unknown };

export function allowOrigin(res: Headed, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
}

/**
 * Runs a public route's work: its answer (202, or an error once the origin passed) carries the
 * CORS header, and a 429 says in Retry-After when to send again.
 */
export async function withCors(
  res: Headed,
  origin: string | undefined,
  work: () => Promise<void>,
): Promise<void> {
  res.setHeader('Vary', 'Origin');
  try {
    await work();
    allowOrigin(res, origin as string);
  } catch (error) {
    if (!(error instanceof OriginNotAllowedError)) allowOrigin(res, origin as string);
    if (error instanceof RateLimitExceededError) res.setHeader('Retry-After', String(error.retryAfter));
    throw error;
  }
}
