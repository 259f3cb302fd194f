/**
 * `npm run bench:fairness -- [contacts] [seconds]` (default 100 000 contacts, 45 s a phase)
 *
 * Company A has a funnel of `contacts` contacts, each with a 1 kB `bio` and a unique `code`
 * property (loaded by set-based SQL); company B a funnel of 1 000. The service runs in this process
 * with its default settings over real HTTP, on a throwaway PostgreSQL.
 * - idle: B's contact list (20 a page) and single reads, two at a time, for `seconds`;
 * - loaded: the same for B while A runs ten exports it stops reading (re-opened when cut off), five
 *   heavy searches (five groups of ten `contains` filters on `bio`) and ten property changes
 *   (`PATCH …/properties/code` toggling `unique`) in loops, each honouring Retry-After on a 429;
 *   beside them, A's own list and single reads; then again without the exports, so that the
 *   searches and property changes get A's places.
 * Prints B's 5xx and p50/p99 idle and loaded, A's interactive answers and A's heavy work by status.
 */
import { request, type ClientRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { createApp } from '../apps/api/src/create-app';
import {
  benchAppEnv,
  BenchFunnel,
  calibrate,
  createBenchFunnel,
  fmt,
  percentile,
  startBenchDatabase,
} from './metrics/bench-env';

const CONTACTS = Number(process.argv[2] ?? 100_000);
const SECONDS = Number(process.argv[3] ?? 45);

type Statuses = Record<string, number>;
const count = (statuses: Statuses, status: number | string) =>
  (statuses[String(status)] = (statuses[String(status)] ?? 0) + 1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const fives = (statuses: Statuses) =>
  Object.entries(statuses).reduce((n, [status, k]) => n + (status.startsWith('5') ? k : 0), 0);

async function seed(url: string, tenant: BenchFunnel, contacts: number, bioBytes: number): Promise<string[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO contacts (funnel_id, company_id, status, email, first_name, properties)
       SELECT $1, $2, 'lead', 'c' || n || '@example.com', 'Contact',
              jsonb_build_object('bio', left(repeat(md5(n::text), 64), $4::int), 'code', 'code-' || n)
       FROM generate_series(1, $3::int) n`,
      [tenant.funnelId, tenant.companyId, contacts, bioBytes],
    );
    await client.query('ANALYZE contacts');
    const { rows } = await client.query<{ id: string }>(
      'SELECT id FROM contacts WHERE funnel_id = $1 ORDER BY random() LIMIT 200',
      [tenant.funnelId],
    );
    return rows.map((r) => r.id);
  } finally {
    await client.end();
  }
}

interface Interactive {
  latencies: number[];
  statuses: Statuses;
}

/** `workers` loops of a list page then a single read, until `until`. */
async function interactive(baseUrl: string, tenant: BenchFunnel, ids: string[], until: number, workers = 2) {
  const result: Interactive = { latencies: [], statuses: {} };
  const headers = { 'x-service-api-key': tenant.key };
  const loop = async (worker: number) => {
    for (let i = worker; performance.now() < until; i++) {
      const path =
        i % 2
          ? `/v1/funnels/${tenant.funnelId}/contacts/${ids[i % ids.length]}`
          : `/v1/funnels/${tenant.funnelId}/contacts?limit=20`;
      const started = performance.now();
      const res = await fetch(`${baseUrl}${path}`, { headers }).catch(() => undefined);
      await res?.arrayBuffer();
      result.latencies.push(performance.now() - started);
      count(result.statuses, res?.status ?? 'network error');
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, w) => loop(w)));
  result.latencies.sort((x, y) => x - y);
  return result;
}

/** Company A's heavy work: loops of `exports` exports it stops reading, searches and property changes. */
function heavyWork(baseUrl: string, tenant: BenchFunnel, exports: number) {
  const statuses: Record<'export' | 'search' | 'property', Statuses> = {
    export: {},
    search: {},
    property: {},
  };
  const open = new Set<ClientRequest>();
  let running = true;
  const headers = { 'x-service-api-key': tenant.key, 'content-type': 'application/json' };
  const backOff = (res: Response | { headers: Record<string, unknown> }, status: number) => {
    const after = res instanceof Response ? res.headers.get('retry-after') : res.headers['retry-after'];
    return sleep(status === 429 ? Number(after ?? 1) * 1000 : 200);
  };

  // Answered 200, it is read up to its first bytes and then never again, until the service cuts it.
  const stalledExport = () =>
    new Promise<number>((resolve) => {
      const req = request(`${baseUrl}/v1/funnels/${tenant.funnelId}/contacts/export`, { headers }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          return;
        }
        res.once('data', () => res.pause());
        res.on('close', () => resolve(200));
        res.on('error', () => undefined);
      });
      open.add(req);
      req.on('error', () => resolve(0));
      req.on('close', () => open.delete(req));
      req.end();
    });
  const exportLoop = async () => {
    while (running) {
      const status = await stalledExport();
      count(statuses.export, status || 'network error');
      if (status !== 200 && running) await sleep(status === 429 ? 2000 : 200);
    }
  };
  const hex = () => Math.floor(Math.random() * 0xffff).toString(16);
  const search = () => ({
    filterGroups: Array.from({ length: 5 }, () => ({
      filters: Array.from({ length: 10 }, () => ({
        field: 'properties.bio',
        operator: 'contains',
        value: hex(),
      })),
    })),
  });
  const jsonLoop = (kind: 'search' | 'property', send: (i: number) => Promise<Response>) => async () => {
    for (let i = 0; running; i++) {
      const res = await send(i).catch(() => undefined);
      await res?.arrayBuffer();
      count(statuses[kind], res?.status ?? 'network error');
      if (res && res.status !== 200 && running) await backOff(res, res.status);
    }
  };
  const searchLoop = jsonLoop('search', () =>
    fetch(`${baseUrl}/v1/funnels/${tenant.funnelId}/contacts/search`, {
      method: 'POST',
      headers,
      body: JSON.stringify(search()),
    }),
  );
  const propertyLoop = jsonLoop('property', (i) =>
    fetch(`${baseUrl}/v1/funnels/${tenant.funnelId}/properties/code`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ unique: i % 2 === 0 }),
    }),
  );
  const loops = [
    ...Array.from({ length: exports }, exportLoop),
    ...Array.from({ length: 5 }, searchLoop),
    ...Array.from({ length: 10 }, propertyLoop),
  ];
  return {
    statuses,
    stop: async () => {
      running = false;
      open.forEach((req) => req.destroy());
      await Promise.all(loops);
    },
  };
}

const line = (name: string, r: Interactive) =>
  `${name.padEnd(30)} ${String(r.latencies.length).padStart(6)} requests  5xx ${fives(r.statuses)}  ` +
  `p50 ${fmt(percentile(r.latencies, 50))} ms  p99 ${fmt(percentile(r.latencies, 99))} ms  ${JSON.stringify(r.statuses)}`;

async function main(): Promise<void> {
  const pg = await startBenchDatabase();
  try {
    const env = benchAppEnv({
      NODE_ENV: 'test',
      LOG_LEVEL: 'error',
      METRICS_PORT: '0',
      // Fair shares of the database are measured here, not the request rate limit.
      RATE_LIMIT_PER_MINUTE: '1000000',
    });
    const app = await createApp(env, { databaseUrl: pg.url });
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    const baseUrl = `http://127.0.0.1:${port}`;
    try {
      const [a, b] = [await createBenchFunnel(app, 'A'), await createBenchFunnel(app, 'B')];
      let started = performance.now();
      const aIds = await seed(pg.url, a, CONTACTS, 1024);
      const bIds = await seed(pg.url, b, 1_000, 100);
      console.log(`loaded ${CONTACTS} + 1000 contacts in ${fmt((performance.now() - started) / 1000)} s`);
      started = performance.now();
      const defined = await fetch(`${baseUrl}/v1/funnels/${a.funnelId}/properties`, {
        method: 'POST',
        headers: { 'x-service-api-key': a.key, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'code', type: 'string' }),
      });
      console.log(`defined code: ${defined.status} in ${fmt(performance.now() - started, 0)} ms`);
      console.log(`machine: sum of 20M integers in ${fmt(await calibrate(pg.url), 0)} ms`);

      const idle = await interactive(baseUrl, b, bIds, performance.now() + SECONDS * 1000);
      console.log(`\n${SECONDS} s a phase, ${CONTACTS} contacts in A's funnel`);
      console.log(line('B idle', idle));
      // With the stalled exports, then without them: the searches and changes then get A's places.
      for (const exports of [10, 0]) {
        const heavy = heavyWork(baseUrl, a, exports);
        // The heavy work takes its places before the measurement starts.
        await sleep(2000);
        const until = performance.now() + SECONDS * 1000;
        const [loaded, own] = await Promise.all([
          interactive(baseUrl, b, bIds, until),
          interactive(baseUrl, a, aIds, until),
        ]);
        await heavy.stop();
        console.log(`\nA: ${exports} stalled exports, 5 searches, 10 property changes`);
        console.log(line("B during A's heavy work", loaded));
        console.log(line("A's own reads meanwhile", own));
        const ratio = percentile(loaded.latencies, 99) / percentile(idle.latencies, 99);
        console.log(
          `B p99 loaded / idle: ${fmt(ratio, 2)}× (target ≤ 2), B 5xx: ${fives(loaded.statuses)} (target 0)`,
        );
        for (const [kind, statuses] of Object.entries(heavy.statuses))
          console.log(`A ${kind.padEnd(9)} ${JSON.stringify(statuses)}`);
      }
    } finally {
      await app.close();
    }
  } finally {
    await pg.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
