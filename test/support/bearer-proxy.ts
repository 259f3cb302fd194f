import { createServer, request, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BearerProxy {
  /** http://127.0.0.1:<port>: the proxy, a local server as the conformance suite expects. */
  url: string;
  /** How many answers had each HTTP status. */
  statuses: Map<number, number>;
  close(): Promise<void>;
}

/**
 * A loopback pass-through to `target` that adds `Authorization: Bearer <token>`, for clients that
 * cannot run OAuth themselves (the conformance suite): every other header, Host and Origin
 * included, reaches the app unchanged, and so does its answer.
 */
export async function startBearerProxy(target: string, token: string): Promise<BearerProxy> {
  const upstream = new URL(target);
  const statuses = new Map<number, number>();
  const server: Server = createServer((incoming, outgoing) => {
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        const status = answer.statusCode ?? 502;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    statuses,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
