import { createServer, Server } from 'node:net';
import { MetricsServer } from '@app/core';
import { startTestApp, TestApp } from './support/app';

describe('A busy METRICS_PORT in development', () => {
  let busy: Server;
  let busyPort: number;
  let t: TestApp | undefined;
  const lines: string[] = [];

  beforeAll(async () => {
    // Another local instance already serves its metrics here.
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, resolve));
    busyPort = (busy.address() as { port: number }).port;
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => busy.close(resolve));
  });

  it('starts the API with one warning line, and serves metrics on a free port', async () => {
    t = await startTestApp(
      { METRICS_PORT: String(busyPort), LOG_LEVEL: 'warn', AUTOMATION_WORKER_ENABLED: 'false' },
      undefined,
      { write: (chunk: string) => void lines.push(...chunk.split('\n').filter(Boolean)) },
    );
    expect((await fetch(`${t.baseUrl}/health`)).status).toBe(200);
    const port = t.app.get(MetricsServer).port!;
    expect(port).not.toBe(busyPort);
    const scraped = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('http_request_duration_seconds');
    const warnings = lines.map((line) => JSON.parse(line) as { msg: string }).map((line) => line.msg);
    expect(warnings.filter((msg) => msg.includes('METRICS_PORT'))).toEqual([
      `METRICS_PORT ${busyPort} is in use; metrics take a free port instead`,
    ]);
  });
});
