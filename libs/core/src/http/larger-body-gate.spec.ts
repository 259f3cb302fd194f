import { once } from 'node:events';
import { createServer, request, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { json, type NextFunction, type Request, type Response } from 'express';
import { ServiceOverloadedError } from '../errors/domain.exception';
import { largerBodyGate } from './larger-body-gate';

describe(largerBodyGate.name, () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const app = express();
    app.use(largerBodyGate(/^\/big/, 2, 1000, 300));
    app.use(json({ limit: '1mb' }));
    app.post('/big', (req, res) => {
      res.json({ members: Object.keys(req.body as object).length });
    });
    // The app's exception filter turns the error into the documented 503 (test/metrics-events.e2e-spec.ts).
    app.use((error: Error, _req: Request, res: Response, _next: NextFunction) => {
      const status = error instanceof ServiceOverloadedError ? error.status : 500;
      res.status(status).json({ name: error.name, message: error.message });
    });
    server = createServer(app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/big`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const post = (body: string) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const large = () => post(JSON.stringify({ pad: 'x'.repeat(5000) }));
  const hold = () => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '50000' },
    });
    const closed = new Promise<void>((resolve) => {
      req.on('error', () => resolve());
      req.on('close', () => resolve());
    });
    req.write('{"pad":"');
    return { req, closed };
  };

  it('refuses a large body past its places as overloaded, serves small bodies, and cuts a body too slow to arrive', async () => {
    const held = [hold(), hold()];
    await new Promise((resolve) => setTimeout(resolve, 100));
    const refused = await large();
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ name: 'ServiceOverloadedError', message: 'Service unavailable' });
    expect((await post('{"a":1}')).status).toBe(200);

    // Both slow bodies are cut after the timeout, which frees their places.
    const started = Date.now();
    await Promise.all(held.map((h) => h.closed));
    expect(Date.now() - started).toBeLessThan(2000);
    const served = await large();
    expect(served.status).toBe(200);
    expect(await served.json()).toEqual({ members: 1 });
  });
});
