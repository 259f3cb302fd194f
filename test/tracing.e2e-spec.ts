import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { freePort, ROOT, waitForHttp } from './support/processes';
import { eventually } from './support/webhook-receiver';

jest.setTimeout(120_000);

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

/** An OTLP/HTTP collector in the test process: keeps the spans exported to /v1/traces. */
async function startCollector(): Promise<{ url: string; spans: OtlpSpan[]; server: Server }> {
  const spans: OtlpSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
        };
        for (const resource of body.resourceSpans)
          for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, server };
}

describe('Tracing with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let fixtures: TestApp;
  let tenant: TenantFixture;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let child: ChildProcess;
  let baseUrl: string;
  const stdout: string[] = [];

  beforeAll(async () => {
    fixtures = await startTestApp();
    tenant = await createTenant(fixtures.app);
    collector = await startCollector();
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [join(ROOT, 'scripts', 'start.js')], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'log',
        DATABASE_URL: fixtures.databaseUrl,
        PORT: String(port),
        DEV_IDP_PORT: '0',
        AUTOMATION_WORKER_ENABLED: 'false',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        // Export at once rather than every five seconds.
        OTEL_BSP_SCHEDULE_DELAY: '50',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout!.on('data', (chunk: Buffer) => stdout.push(...chunk.toString('utf8').split('\n')));
    await waitForHttp(`${baseUrl}/health`, 90_000);
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await new Promise((resolve) => collector?.server.close(resolve));
    await fixtures?.close();
  });

  it('exports the spans of a request (HTTP server span by route, Express, PostgreSQL queries) and logs its trace id', async () => {
    const traceId = randomBytes(16).toString('hex');
    const res = await fetch(`${baseUrl}/v1/funnels/${tenant.funnelId}/contacts`, {
      headers: {
        'x-service-api-key': tenant.key,
        traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
      },
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id');

    const spans = await eventually(async () => {
      const found = collector.spans.filter((span) => span.traceId === traceId);
      return found.some((span) => span.kind === 2) && found;
    });
    const names = spans.map((span) => span.name);
    // The server span of the incoming request (kind 2 = SERVER), named by its route.
    expect(spans.find((span) => span.kind === 2)?.name).toBe('GET /v1/funnels/:funnelId/contacts');
    // Express's own spans hang under the server span: its middleware and the routed handler.
    const server = spans.find((span) => span.kind === 2)!;
    const attribute = (span: OtlpSpan, key: string) => span.attributes?.find((a) => a.key === key)?.value;
    const expressSpans = spans.filter((span) => attribute(span, 'express.type') !== undefined);
    expect(expressSpans.map((span) => attribute(span, 'express.type')?.stringValue)).toEqual(
      expect.arrayContaining(['middleware', 'request_handler']),
    );
    expect(expressSpans.every((span) => span.parentSpanId === server.spanId)).toBe(true);
    const handlers = expressSpans.filter(
      (span) => attribute(span, 'express.type')?.stringValue === 'request_handler',
    );
    expect(handlers.map((span) => span.attributes)).toContainEqual(
      expect.arrayContaining([
        { key: 'http.route', value: { stringValue: '/v1/funnels/:funnelId/contacts' } },
        { key: 'express.name', value: { stringValue: '/v1/funnels/:funnelId/contacts' } },
      ]),
    );
    expect(names).toContain('pg-pool.connect');
    // The key's lookup and the page's statement are named prepared statements: their spans carry the name.
    expect(names.filter((name) => name.startsWith('pg.query:api_key_by_prefix '))).toHaveLength(1);
    expect(names.filter((name) => name.startsWith('pg.query:contacts_page_'))).toHaveLength(1);

    const accessLine = await eventually(async () =>
      stdout
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.reqId === requestId && line.msg === 'request'),
    );
    expect(accessLine.trace_id).toBe(traceId);
  });
});
