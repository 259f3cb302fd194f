/**
 * `npm run bench:citus -- [funnels]` (default 100)
 *
 * The service on a Citus cluster (a coordinator and two workers, PostgreSQL 15 with Citus 13, on
 * loopback) beside the same service on one PostgreSQL 15, on the same machine in the same run:
 * each phase runs on one PostgreSQL, then on the cluster, through real HTTP, 4 calls in flight.
 * Phases: batch upserts (two calls of 100 per funnel, the second half updates), event ingestion
 * (one batch of random sessions per funnel), contact reads by id and pages of the contact list.
 * Prints each rate and the cluster's as a ratio of one PostgreSQL's; then how the contacts and
 * events spread over the two workers (each worker's share against an even half), as Citus hashes
 * the funnels to shards and again after `admin citus rebalance` moved whole shard groups.
 * Needs Citus installed into Debian's PostgreSQL 15 (see docs/SCALING.md).
 */
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { runMigrations } from '@app/core';
import type { RebalanceResult } from '../apps/admin/src/citus/citus-rebalance.service';
import type { Spread } from '../apps/admin/src/citus/shard-balance';
import { createApp } from '../apps/api/src/create-app';
import { databaseSchema } from '../db/schema';
import {
  CitusCluster,
  citusInstalled,
  CITUS_LIBRARY,
  startCitusCluster,
} from '../test/support/citus-cluster';
import { startDebianPostgres } from '../test/support/debian-postgres';
import { runAdmin } from '../test/support/processes';
import { randomTraffic } from '../test/support/random-traffic';
import { benchAppEnv, BenchFunnel, createBenchFunnel, fmt } from './metrics/bench-env';

const FUNNELS = Number(process.argv[2] ?? 100);
const IN_FLIGHT = 4;
const READS = 1_000;
const PAGES = 400;

interface Target {
  name: string;
  url: string;
  app: NestExpressApplication;
  port: number;
  funnels: BenchFunnel[];
  contacts: { funnelId: string; key: string; id: string }[];
}

const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });

function call(port: number, key: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: { 'x-service-api-key': key, 'content-type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 500) >= 300 && res.statusCode !== 207)
            reject(new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 200)}`));
          else resolve(text ? JSON.parse(text) : undefined);
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Runs `calls` calls, IN_FLIGHT at a time; answers the calls per second. */
async function rate(calls: number, run: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < calls) await run(next++);
    }),
  );
  return (calls * 1000) / (performance.now() - started);
}

async function startTarget(name: string, url: string): Promise<Target> {
  const env = benchAppEnv({
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '10000000',
    METRICS_PORT: '0',
    SEGMENT_FOLD_POLL_MS: '3600000',
    DATABASE_URL: url,
  });
  const app = await createApp(env, { databaseUrl: url });
  await app.listen(0, '127.0.0.1');
  // Each server idles while the other runs its phase: keep the client's sockets open meanwhile.
  app.getHttpServer().keepAliveTimeout = 600_000;
  const port = (app.getHttpServer().address() as { port: number }).port;
  const funnels: BenchFunnel[] = [];
  for (let i = 0; i < FUNNELS; i++) funnels.push(await createBenchFunnel(app, `Bench ${i}`));
  return { name, url, app, port, funnels, contacts: [] };
}

const email = (funnel: number, i: number) => `c${i}@f${funnel}.example.com`;

const PHASES: { name: string; unit: string; run(t: Target): Promise<number> }[] = [
  {
    name: 'batch upserts (100 a call, by email)',
    unit: 'contacts/s',
    run: async (t) => {
      const calls = t.funnels.length * 2;
      const perSecond = await rate(calls, async (i) => {
        const f = i % t.funnels.length;
        const round = Math.floor(i / t.funnels.length);
        const { funnelId, key } = t.funnels[f];
        // The second round updates every other contact of the first and creates the rest.
        const contacts = Array.from({ length: 100 }, (_, n) => ({
          email: email(f, round === 0 ? n : n % 2 === 0 ? n : 100 + n),
          firstName: `R${round}`,
        }));
        const answer = (await call(t.port, key, 'POST', `/v1/funnels/${funnelId}/contacts/batch`, {
          upsertBy: 'email',
          contacts,
        })) as { data: { id?: string; data?: { id: string } }[] };
        if (round === 0)
          for (const item of answer.data) {
            const id = item.data?.id ?? item.id;
            if (id) t.contacts.push({ funnelId, key, id });
          }
      });
      return perSecond * 100;
    },
  },
  {
    name: 'event ingestion (20 sessions a call)',
    unit: 'events/s',
    run: async (t) => {
      const batches = t.funnels.map((_, i) => randomTraffic(i + 1, 20));
      const events = batches.reduce((n, b) => n + b.length, 0);
      const perSecond = await rate(t.funnels.length, (i) =>
        call(t.port, t.funnels[i].key, 'POST', `/v1/funnels/${t.funnels[i].funnelId}/events`, {
          events: batches[i],
        }),
      );
      return (perSecond * events) / t.funnels.length;
    },
  },
  {
    name: 'contact reads by id',
    unit: 'reads/s',
    run: (t) =>
      rate(READS, (i) => {
        const c = t.contacts[(i * 7919) % t.contacts.length];
        return call(t.port, c.key, 'GET', `/v1/funnels/${c.funnelId}/contacts/${c.id}`);
      }),
  },
  {
    name: 'contact list pages (50, by email)',
    unit: 'pages/s',
    run: (t) =>
      rate(PAGES, (i) => {
        const f = t.funnels[i % t.funnels.length];
        return call(
          t.port,
          f.key,
          'GET',
          `/v1/funnels/${f.funnelId}/contacts?limit=50&sortField=email&sortOrder=1`,
        );
      }),
  },
];

function printSpread(label: string, spread: Spread): void {
  for (const kind of ['contacts', 'events'] as const) {
    const total = spread.workers.reduce((n, w) => n + w[kind], 0);
    const shares = spread.workers.map((w) => `${w.worker} ${w[kind]}`).join(', ');
    const from = kind === 'contacts' ? spread.contactsFromEven : spread.eventsFromEven;
    console.log(`${label} ${kind}: ${shares} of ${total}: ${fmt(from)} % from even (target ≤ 10 %)`);
  }
}

async function main(): Promise<void> {
  if (!citusInstalled()) {
    console.log(`bench:citus needs Citus: ${CITUS_LIBRARY} is not installed`);
    return;
  }
  const [single, cluster]: [Awaited<ReturnType<typeof startDebianPostgres>>, CitusCluster] =
    await Promise.all([startDebianPostgres(), startCitusCluster()]);
  const targets: Target[] = [];
  try {
    await runMigrations(single.url, databaseSchema);
    const distributed = await runAdmin(['citus', 'distribute'], { DATABASE_URL: cluster.url });
    if (distributed.code !== 0)
      throw new Error(`citus distribute: ${distributed.stdout}${distributed.stderr}`);
    targets.push(
      await startTarget('one PostgreSQL', single.url),
      await startTarget('Citus, 2 workers', cluster.url),
    );
    console.log(
      `${FUNNELS} funnels on each; load average ${loadavg()
        .map((l) => fmt(l))
        .join(' ')}`,
    );
    for (const phase of PHASES) {
      const [one, citus] = [await phase.run(targets[0]), await phase.run(targets[1])];
      console.log(
        `${phase.name}: one PostgreSQL ${fmt(one)} ${phase.unit}, Citus ${fmt(citus)} ${phase.unit}, ratio ${fmt(citus / one, 2)}`,
      );
    }
    const rebalanced = await runAdmin(['citus', 'rebalance'], { DATABASE_URL: cluster.url });
    if (rebalanced.code !== 0) throw new Error(`citus rebalance: ${rebalanced.stdout}${rebalanced.stderr}`);
    const { before, moved, after } = rebalanced.json as unknown as RebalanceResult;
    printSpread('hashed', before);
    printSpread(`after citus rebalance moved ${moved.length} shard group(s)`, after);
  } finally {
    for (const t of targets) await t.app.close();
    agent.destroy();
    await Promise.all([single.stop(), cluster.stop()]);
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
