/**
 * `npm run bench:access-log -- [requests]` (default 200 000)
 *
 * The per-request cost of the request id, access line and duration sample: the access-log
 * middleware runs on real Node HTTP request and response objects, writing through pino's
 * asynchronous destination (as in production) to /dev/null, and is compared with the same loop
 * with the logger silenced (the line never formatted) and with no middleware at all. The loop
 * yields to the event loop every 64 requests, as a server does between them.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import pino from 'pino';
import { accessLog, AppMetrics, HttpMetrics, ShutdownState } from '@app/core';

const requests = Number(process.argv[2] ?? 200_000);

function fakeExchange(): [Request, Response] {
  const req = new IncomingMessage(new Socket());
  req.method = 'GET';
  req.url = '/v1/funnels/0a6f5e0e-9d3c-4b5f-8a37-0b7a1c2d3e4f/contacts';
  req.headers = { 'x-request-id': 'bench-request-id' };
  Object.assign(req, {
    route: { path: '/v1/funnels/:funnelId/contacts' },
    principal: { companyId: '0a6f5e0e-9d3c-4b5f-8a37-0b7a1c2d3e4f', keyPrefix: '0123456789ab' },
  });
  const res = new ServerResponse(req);
  return [req as unknown as Request, res as unknown as Response];
}

// Requests between two turns of the event loop, where the asynchronous destination writes, as it
// does between requests of a server.
const PER_TURN = 64;

async function run(level: string | undefined): Promise<number> {
  const logger = pino({ level: level ?? 'info' }, pino.destination({ dest: '/dev/null', sync: false }));
  const middleware =
    level === undefined
      ? undefined
      : accessLog(logger, new HttpMetrics(new AppMetrics()), new ShutdownState());
  const next: NextFunction = () => undefined;
  // CPU time, not wall time: the figure holds on a machine shared with other work.
  const started = process.cpuUsage();
  for (let i = 0; i < requests; i++) {
    if (i % PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    const [req, res] = fakeExchange();
    middleware?.(req, res, next);
    res.statusCode = 200;
    res.emit('close');
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / requests;
}

async function main(): Promise<void> {
  await run('info'); // warm-up
  // The best of three rounds of each: the least disturbed by other processes.
  const best = async (level: string | undefined) =>
    Math.min(await run(level), await run(level), await run(level));
  const bare = await best(undefined);
  const silenced = await best('silent');
  const logged = await best('info');
  console.log(`requests: ${requests}`);
  console.log(`no middleware:            ${bare.toFixed(2)} µs CPU/request (building the request objects)`);
  console.log(`middleware, line skipped: ${(silenced - bare).toFixed(2)} µs CPU/request`);
  console.log(`middleware, line written: ${(logged - bare).toFixed(2)} µs CPU/request`);
}

void main();
