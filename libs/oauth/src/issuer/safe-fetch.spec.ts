import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SafeFetchError, safeFetch, SafeFetchLimits } from './safe-fetch';

describe(safeFetch.name, () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/big') return void response.end('x'.repeat(10_000));
      if (request.url === '/slow') return void setTimeout(() => response.end('{}'), 2_000);
      if (request.url?.startsWith('/hop/')) {
        const left = Number(request.url.slice('/hop/'.length));
        return void response.writeHead(302, { location: left ? `/hop/${left - 1}` : '/doc' }).end();
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });

  const limits: SafeFetchLimits = {
    maxBytes: 1_000,
    timeoutMs: 1_000,
    maxRedirects: 2,
    allowPrivateAddresses: true,
    urlAllowed: () => true,
  };
  const refusal = (path: string, overrides: Partial<SafeFetchLimits> = {}) =>
    safeFetch(new URL(`${base}${path}`), { ...limits, ...overrides }).then(
      () => 'fetched',
      (error: Error) => (error instanceof SafeFetchError ? error.message : `unexpected ${error.name}`),
    );

  it('follows redirects up to the limit', async () => {
    expect((await safeFetch(new URL(`${base}/hop/1`), limits)).body).toBe('{"ok":true}');
    expect(await refusal('/hop/2')).toBe('too many redirects');
  });

  it('stops at the size and time limits', async () => {
    expect(await refusal('/big')).toBe('larger than 1000 bytes');
    expect(await refusal('/slow')).toBe('timed out');
  });

  it('never reaches a private address unless allowed, redirects included', async () => {
    expect(await refusal('/doc', { allowPrivateAddresses: false })).toBe(
      `${new URL(base).host} is a private address`,
    );
    const byName = new URL(base);
    byName.hostname = 'localhost';
    const named = await safeFetch(new URL(`${byName.href}doc`), {
      ...limits,
      allowPrivateAddresses: false,
    }).catch((error: Error) => error.message);
    expect(named).toBe('localhost resolves to a private address');
    expect(await refusal('/hop/0', { urlAllowed: (url) => url.pathname !== '/doc' })).toBe(
      `${base}/doc is not an allowed URL`,
    );
  });

  it('refuses an IPv4 address it must not reach written as IPv6, as webhook targets do', async () => {
    const port = new URL(base).port;
    for (const host of [
      '[::127.0.0.1]',
      '[::ffff:127.0.0.1]',
      '[::169.254.169.254]',
      '[64:ff9b::a9fe:a9fe]',
      '[2002:a9fe:a9fe::]',
      '[64:ff9b:1::808:808]',
    ]) {
      const message = await safeFetch(new URL(`http://${host}:${port}/doc`), {
        ...limits,
        allowPrivateAddresses: false,
      }).catch((error: Error) => error.message);
      expect(message).toMatch(/ is a private address$/);
    }
  });
});
