import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { AutomationsService } from '@app/automations';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { freePort, ROOT, waitForHttp } from './support/processes';
import { eventually, WebhookReceiver } from './support/webhook-receiver';

jest.setTimeout(180_000);

const SHUTDOWN_DELAY_MS = 1500;
const WEBHOOK_LATENCY_MS = 300;
// How long the test waits for a condition: generous, as the machine may be busy with other work.
const PATIENCE_MS = 60_000;

interface Instance {
  name: string;
  child: ChildProcess;
  baseUrl: string;
  /** As a load balancer sees it: the last readiness answer. */
  ready: boolean;
  exit: Promise<number | null>;
}

async function startInstance(name: string, databaseUrl: string): Promise<Instance> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'start.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'error',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      DEV_IDP_PORT: '0',
      RATE_LIMIT_PER_MINUTE: '100000',
      SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS),
      AUTOMATION_POLL_INTERVAL_MS: '50',
      // Held webhooks stay in flight until the test answers them, however slow the machine.
      AUTOMATION_WEBHOOK_TIMEOUT_MS: String(PATIENCE_MS * 2),
      AUTOMATION_LEASE_MS: String(PATIENCE_MS * 3),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseUrl}/health`, 120_000);
  return { name, child, baseUrl, ready: true, exit };
}

/**
 * Two instances on one database behind a client-side load balancer that follows readiness, as
 * a Kubernetes Service does. One is stopped with SIGTERM in the middle of mixed traffic.
 */
describe('Rolling restart', () => {
  let fixtures: TestApp;
  let tenant: TenantFixture;
  let receiver: WebhookReceiver;
  let instances: Instance[];
  // While set, webhook answers wait for it: deliveries stay in flight across the drain.
  let hold: Promise<void> | undefined;
  let release: () => void = () => undefined;
  // The test's traffic and health checks run while set.
  let running = false;

  beforeAll(async () => {
    fixtures = await startTestApp({ AUTOMATION_WORKER_ENABLED: 'false' });
    tenant = await createTenant(fixtures.app);
    receiver = await WebhookReceiver.start(async () => {
      await new Promise((resolve) => setTimeout(resolve, WEBHOOK_LATENCY_MS));
      await hold;
      return 200;
    });
    await fixtures.app
      .get(AutomationsService)
      .create({ funnelId: tenant.funnelId, on: 'contact.created', webhook: receiver.url });
    instances = await Promise.all([
      startInstance('a', fixtures.databaseUrl),
      startInstance('b', fixtures.databaseUrl),
    ]);
  });
  afterAll(async () => {
    // The receiver closes once the webhooks it holds are answered.
    release();
    running = false;
    for (const instance of instances ?? []) {
      if (instance.child.exitCode === null && instance.child.signalCode === null) {
        instance.child.kill('SIGKILL');
        await instance.exit;
      }
    }
    await receiver?.close();
    await fixtures?.close();
  });

  it('loses no accepted write: readiness fails first, requests and deliveries in flight finish, exit 0', async () => {
    const [a, b] = instances;
    const contacts = `/v1/funnels/${tenant.funnelId}/contacts`;
    const headers = { 'x-service-api-key': tenant.key, 'content-type': 'application/json' };
    const createdIds = new Set<string>();
    let acceptedEvents = 0;
    const failures: string[] = [];
    running = true;

    // The balancer's health checks.
    const checks = (async () => {
      while (running) {
        await Promise.all(
          instances.map(async (instance) => {
            instance.ready = await fetch(`${instance.baseUrl}/health`).then(
              (res) => res.status === 200,
              () => false,
            );
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    let turn = 0;
    const pick = () => {
      const ready = instances.filter((instance) => instance.ready);
      return ready[turn++ % ready.length] ?? b;
    };

    const oneRequest = async (i: number) => {
      const instance = pick();
      const kind = i % 3;
      try {
        if (kind === 0) {
          const res = await fetch(`${instance.baseUrl}${contacts}`, {
            method: 'POST',
            headers: { ...headers, 'idempotency-key': randomUUID() },
            body: JSON.stringify({ email: `load-${randomUUID()}@example.com` }),
          });
          if (res.status !== 201) throw new Error(`create answered ${res.status}`);
          createdIds.add(((await res.json()) as { data: { id: string } }).data.id);
        } else if (kind === 1) {
          const res = await fetch(`${instance.baseUrl}${contacts}?limit=5`, { headers });
          if (res.status !== 200) throw new Error(`list answered ${res.status}`);
          await res.arrayBuffer();
        } else {
          const res = await fetch(`${instance.baseUrl}/v1/funnels/${tenant.funnelId}/events`, {
            method: 'POST',
            headers,
            body: JSON.stringify({
              events: [
                {
                  type: 'session_start',
                  sessionId: randomUUID(),
                  occurredAt: new Date().toISOString(),
                  visitorId: randomUUID(),
                  device: 'desktop',
                },
              ],
            }),
          });
          if (res.status !== 202) throw new Error(`events answered ${res.status}`);
          acceptedEvents += ((await res.json()) as { data: { accepted: number } }).data.accepted;
        }
      } catch (error) {
        failures.push(`${instance.name}: ${(error as Error).message}`);
      }
    };
    let sent = 0;
    const clients = Array.from({ length: 6 }, async () => {
      while (running) await oneRequest(sent++);
    });

    // Webhook answers wait from here: the stopping instance's worker holds leased runs whose
    // webhooks are still being answered across the drain.
    hold = new Promise<void>((resolve) => (release = resolve));
    const db = fixtures.app.get(DataSource);
    const leasedByA = async () =>
      (
        (await db.query(
          `SELECT count(*)::int AS leased FROM automation_runs WHERE status = 'running' AND locked_by LIKE $1`,
          [`%:${a.child.pid}:%`],
        )) as { leased: number }[]
      )[0].leased;
    await eventually(async () => (await leasedByA()) > 0, PATIENCE_MS);
    // A request whose body is still arriving when the server stops accepting: it must complete.
    let sendRest: () => void = () => undefined;
    const restOfBody = new Promise<void>((resolve) => (sendRest = resolve));
    let sendingBody: () => void = () => undefined;
    const bodyStarted = new Promise<void>((resolve) => (sendingBody = resolve));
    let bodyParts = 0;
    const slowEmail = `slow-${randomUUID()}@example.com`;
    const slowCreate = fetch(`${a.baseUrl}${contacts}`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': randomUUID() },
      // Read by fetch once connected: the first read sends the start of the body, the second waits.
      body: new ReadableStream(
        {
          async pull(controller) {
            const body = JSON.stringify({ email: slowEmail });
            if (!bodyParts++) {
              controller.enqueue(new TextEncoder().encode(body.slice(0, 5)));
              return sendingBody();
            }
            await restOfBody;
            controller.enqueue(new TextEncoder().encode(body.slice(5)));
            controller.close();
          },
        },
        { highWaterMark: 0 },
      ),
      duplex: 'half',
    } as RequestInit);
    // Awaited below; when the test fails first, the instance's end rejects it unobserved.
    slowCreate.catch(() => undefined);

    await bodyStarted;
    a.child.kill('SIGTERM');
    // Readiness fails while the process still answers.
    await eventually(async () => !a.ready, PATIENCE_MS);
    expect((await fetch(`${a.baseUrl}/health/live`)).status).toBe(200);
    expect(a.child.exitCode).toBeNull();
    // Past the delay the instance drains: it cannot exit while the slow request and the leased
    // runs' deliveries are in flight, which they stay until the test lets them finish, so any
    // wait of at least the delay shows the same.
    await new Promise((resolve) => setTimeout(resolve, SHUTDOWN_DELAY_MS + 500));
    expect(a.child.exitCode).toBeNull();
    expect(await leasedByA()).toBeGreaterThan(0);
    release();
    sendRest();
    const slow = await slowCreate;
    expect(slow.status).toBe(201);
    createdIds.add(((await slow.json()) as { data: { id: string } }).data.id);

    // It exits by itself once those finish (a hung process would meet the deadline instead).
    let deadline: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      a.exit,
      new Promise((resolve) => (deadline = setTimeout(() => resolve('still running'), PATIENCE_MS))),
    ]);
    clearTimeout(deadline);
    expect(code).toBe(0);

    // Traffic goes on against the survivor for a few more requests of each kind, then stops.
    const sentAtExit = sent;
    await eventually(async () => sent > sentAtExit + 12, PATIENCE_MS);
    running = false;
    await Promise.all([...clients, checks]);

    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(30);
    const [{ count: stored }] = (await db.query(
      'SELECT count(*)::int AS count FROM contacts WHERE id = ANY($1)',
      [[...createdIds]],
    )) as { count: number }[];
    expect(stored).toBe(createdIds.size);
    const [{ count: storedEvents }] = (await db.query(
      'SELECT count(*)::int AS count FROM metric_events WHERE funnel_id = $1',
      [tenant.funnelId],
    )) as { count: number }[];
    expect(storedEvents).toBe(acceptedEvents);

    // Every created contact's webhook is delivered, none left leased by the stopped instance.
    const runs = await eventually(async () => {
      const rows = (await db.query(
        `SELECT status, count(*)::int AS count FROM automation_runs GROUP BY status`,
      )) as { status: string; count: number }[];
      return rows.length === 1 && rows[0].status === 'succeeded' && rows;
    }, PATIENCE_MS);
    expect(runs).toEqual([{ status: 'succeeded', count: createdIds.size }]);
    // Exactly once: no delivery was cut off and repeated by the other instance.
    expect(receiver.requests.length).toBe(createdIds.size);
  });
});
