import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from './support/app';
import { createTestDatabase } from './support/database';
import { createTenant, TenantFixture } from './support/factories';
import { ServerProcess, startServerProcess } from './support/processes';

jest.setTimeout(240_000);

const CREATES = 400;
const CONCURRENCY = 8;

/** Idempotent creates retried after the server was killed with SIGKILL mid-stream: 0 lost, 0 duplicated. */
describe('POST …/contacts with Idempotency-Key across a killed server', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let fixtures: TestApp;
  let tenant: TenantFixture;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    fixtures = await startTestApp({ AUTOMATION_WORKER_ENABLED: 'false' }, db.url);
    tenant = await createTenant(fixtures.app);
  });
  afterAll(async () => {
    await kill();
    await fixtures.app.close();
    await db.drop();
  });

  async function start(): Promise<string> {
    server = await startServerProcess({
      DATABASE_URL: db.url,
      RATE_LIMIT_PER_MINUTE: '100000',
      AUTOMATION_WORKER_ENABLED: 'false',
    });
    return server.baseUrl;
  }

  async function kill(): Promise<void> {
    const running = server;
    server = undefined;
    await running?.kill();
  }

  const create = async (baseUrl: string, i: number) => {
    try {
      const res = await fetch(`${baseUrl}/v1/funnels/${tenant.funnelId}/contacts`, {
        method: 'POST',
        headers: {
          'x-service-api-key': tenant.key,
          'content-type': 'application/json',
          'idempotency-key': `crash-${i}`,
        },
        body: JSON.stringify({ email: `crash-${i}@example.com`, firstName: `N${i}` }),
      });
      const body = (await res.json()) as { data?: { id: string } };
      return { status: res.status, id: body.data?.id, replayed: res.headers.get('idempotent-replayed') };
    } catch {
      return { status: 0, id: undefined, replayed: null };
    }
  };

  it('creates every contact exactly once when each request is retried with its key', async () => {
    const first = await start();
    const before: Awaited<ReturnType<typeof create>>[] = new Array(CREATES);
    let next = 0;
    let answered = 0;
    let killing: Promise<void> | undefined;
    const worker = async () => {
      while (next < CREATES) {
        const i = next++;
        before[i] = await create(first, i);
        // Killed while requests are in flight, a quarter of the way through.
        if (++answered === CREATES / 4) killing = kill();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    await killing;
    const succeeded = before.filter((r) => r.status === 201).length;
    expect(succeeded).toBeGreaterThanOrEqual(CREATES / 4 - CONCURRENCY);
    expect(succeeded).toBeLessThan(CREATES);
    expect(before.every((r) => r.status === 201 || r.status === 0)).toBe(true);

    const second = await start();
    const after: Awaited<ReturnType<typeof create>>[] = [];
    for (let i = 0; i < CREATES; i += CONCURRENCY) {
      const batch = Array.from({ length: Math.min(CONCURRENCY, CREATES - i) }, (_, k) =>
        create(second, i + k),
      );
      after.push(...(await Promise.all(batch)));
    }
    expect(after.map((r) => r.status)).toEqual(Array(CREATES).fill(201));
    // What was answered before the kill is answered again, same contact, marked as a replay.
    const answeredBefore = before.flatMap((r, i) =>
      r.status === 201 ? [[r.id, after[i].id, after[i].replayed]] : [],
    );
    expect(answeredBefore).toEqual(before.filter((r) => r.status === 201).map((r) => [r.id, r.id, 'true']));

    const rows: { n: string; emails: string; ids: string }[] = await fixtures.app
      .get(DataSource)
      .query(
        'SELECT count(*)::text AS n, count(DISTINCT email)::text AS emails, count(DISTINCT id)::text AS ids FROM contacts WHERE funnel_id = $1',
        [tenant.funnelId],
      );
    expect(rows[0]).toEqual({ n: String(CREATES), emails: String(CREATES), ids: String(CREATES) });
    expect(new Set(after.map((r) => r.id)).size).toBe(CREATES);
  });
});
