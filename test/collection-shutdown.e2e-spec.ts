import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { startTestApp } from './support/app';
import { createTestDatabase } from './support/database';
import { createTenant } from './support/factories';
import { httpClient } from './support/http-client';
import { freePort, ROOT, waitForHttp } from './support/processes';

jest.setTimeout(180_000);

const PAGE = 'http://127.0.0.1:5174';
const HEADERS = {
  origin: PAGE,
  'user-agent':
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
};
const VISITS = 60;
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

/** A page's two events of visitor `n` (of a run). */
const visit = (run: string, n: number) => ({
  events: [
    { type: 'session_start', sessionId: `${run}-${n}`, occurredAt: minutesAgo(2) },
    { type: 'page_view', sessionId: `${run}-${n}`, occurredAt: minutesAgo(1), pageSlug: 'start' },
  ],
});

/** Sends every visit at once; all must be answered 202 (checked, not yet written). */
async function sendVisits(baseUrl: string, funnelId: string, run: string): Promise<void> {
  const answers = await Promise.all(
    Array.from({ length: VISITS }, (_, n) =>
      httpClient(baseUrl).post(`/v1/funnels/${funnelId}/collect`, visit(run, n), HEADERS),
    ),
  );
  expect(answers.map((a) => a.status)).toEqual(Array(VISITS).fill(202));
}

async function storedOf(databaseUrl: string, funnelId: string, run: string) {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT count(*)::int AS events, count(DISTINCT session_id)::int AS sessions
         FROM metric_events WHERE funnel_id = $1 AND session_id LIKE $2`,
      [funnelId, `${run}-%`],
    );
    return rows[0];
  } finally {
    await client.end();
  }
}

/** Collect answers before it writes: a stop must write what was answered first. */
describe('Browser collection on shutdown', () => {
  it('writes every event it answered before app.close() returns', async () => {
    const db = await createTestDatabase();
    const t = await startTestApp({ COLLECT_LIMIT_PER_ADDRESS: '100000' }, db.url);
    const acme = await createTenant(t.app);
    await httpClient(t.baseUrl, acme.key).send('PATCH', `/v1/funnels/${acme.funnelId}`, {
      collection: { enabled: true, allowedOrigins: [PAGE] },
    });
    await sendVisits(t.baseUrl, acme.funnelId, 'close');
    await t.app.close();
    try {
      expect(await storedOf(db.url, acme.funnelId, 'close')).toEqual({
        events: 2 * VISITS,
        sessions: VISITS,
      });
    } finally {
      await db.drop();
    }
  });

  it('writes every event it answered before the process exits on SIGTERM', async () => {
    const fixtures = await startTestApp();
    let child: ChildProcess | undefined;
    try {
      const acme = await createTenant(fixtures.app);
      await httpClient(fixtures.baseUrl, acme.key).send('PATCH', `/v1/funnels/${acme.funnelId}`, {
        collection: { enabled: true, allowedOrigins: [PAGE] },
      });
      const port = await freePort();
      child = spawn(process.execPath, [join(ROOT, 'scripts', 'start.js')], {
        cwd: ROOT,
        env: {
          ...process.env,
          NODE_ENV: 'test',
          LOG_LEVEL: 'error',
          DATABASE_URL: fixtures.databaseUrl,
          PORT: String(port),
          DEV_IDP_PORT: '0',
          SHUTDOWN_DELAY_MS: '0',
          COLLECT_LIMIT_PER_ADDRESS: '100000',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const started = child;
      const exit = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));
      const baseUrl = `http://127.0.0.1:${port}`;
      await waitForHttp(`${baseUrl}/health`, 120_000);
      await sendVisits(baseUrl, acme.funnelId, 'term');
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
      expect(await storedOf(fixtures.databaseUrl, acme.funnelId, 'term')).toEqual({
        events: 2 * VISITS,
        sessions: VISITS,
      });
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await fixtures.close();
    }
  });
});
