import { createServer, IncomingHttpHeaders, Server } from 'node:http';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes received, as signatures are computed over them. */
  rawBody: Buffer;
  json: Record<string, unknown>;
}

/** How the receiver answers the n-th request (0-based): a status code, optionally after a delay. */
export type Responder = (request: ReceivedRequest, index: number) => number | Promise<number>;

/** A real HTTP endpoint on 127.0.0.1 that records every webhook it receives. */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  url = '';
  private waiters: { count: number; resolve: () => void }[] = [];
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const rawBody = Buffer.concat(chunks);
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(rawBody.toString('utf8')) as Record<string, unknown>;
      } catch {
        // kept empty; rawBody shows what arrived
      }
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody, json };
      const index = this.requests.push(request) - 1;
      this.notify();
      const status = await this.respond(request, index);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'receiver error');
    });
  });

  private constructor(public respond: Responder) {}

  static async start(respond: Responder = () => 200, port = 0): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(respond);
    await new Promise<void>((resolve, reject) => {
      receiver.server.once('error', reject);
      receiver.server.listen(port, '127.0.0.1', resolve);
    });
    const { port: bound } = receiver.server.address() as { port: number };
    receiver.url = `http://127.0.0.1:${bound}/hooks`;
    return receiver;
  }

  /** Resolves once `count` requests have arrived (answered or not); rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs = 60_000): Promise<ReceivedRequest[]> {
    if (this.requests.length >= count) return Promise.resolve(this.requests);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`expected ${count} webhook requests, got ${this.requests.length}`)),
        timeoutMs,
      );
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve(this.requests);
        },
      });
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private notify(): void {
    const ready = this.waiters.filter((w) => this.requests.length >= w.count);
    this.waiters = this.waiters.filter((w) => this.requests.length < w.count);
    ready.forEach((w) => w.resolve());
  }
}

/** Polls `check` until it returns a truthy value or the deadline passes. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
