/**
 * `npm run bench:replica -- [--contacts 20000] [--duration 5] [--connections 20] [--rounds 2]
 *                           [--max-lag 1000] [--no-build]`
 *
 * Reads on a streaming replica against reads on the primary, in the same run: an embedded
 * PostgreSQL 17 primary with a hot standby streaming from it (test/support/streaming-replica.ts),
 * a funnel of `contacts` contacts, and two instances of the production build side by side, one
 * reading from the primary only, one with DATABASE_READ_URL on the standby. Each read route is
 * driven on both, interleaved, for several rounds; prints req/s, p50, p99 and the CPU each request
 * cost the primary and the standby (all their processes: backends, WAL sender and receiver).
 */
import autocannon from 'autocannon';
import { startStreamingReplica } from '../test/support/streaming-replica';
import { buildHttpBenchData, HttpBenchData } from './http/dataset';
import { buildService, freePort, productionEnv, Server, startService } from './http/processes';
import { fmt, sql } from './metrics/bench-env';
import { machineTicks, postgresCpuMs, postmasterPid } from './metrics/cpu';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const CONTACTS = Number(option('contacts', '20000'));
const DURATION = Number(option('duration', '5'));
const CONNECTIONS = Number(option('connections', '20'));
const ROUNDS = Number(option('rounds', '2'));
// DATABASE_READ_MAX_LAG_MS of the replica-reading instance.
const MAX_LAG_MS = option('max-lag', '1000');

interface Route {
  name: string;
  path: (d: HttpBenchData, i: number) => string;
}

const DAY = 86_400_000;
const ROUTES: Route[] = [
  { name: 'list page 0', path: (d) => `/v1/funnels/${d.funnelId}/contacts?page=0&limit=50` },
  {
    name: 'list by email',
    path: (d) => `/v1/funnels/${d.funnelId}/contacts?page=0&limit=50&sortField=email&sortOrder=1`,
  },
  {
    name: 'one contact',
    path: (d, i) => `/v1/funnels/${d.funnelId}/contacts/${d.contactIds[i % d.contactIds.length]}`,
  },
  { name: 'workspaces', path: () => '/v1/workspaces' },
  {
    name: 'KPI new contacts',
    path: (d) =>
      `/v1/funnels/${d.funnelId}/metrics/kpis/kpi_new_contacts?from=${new Date(Date.now() - 30 * DAY).toISOString()}&to=${new Date().toISOString()}`,
  },
];

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  /** CPU milliseconds per request of the primary's and the standby's PostgreSQL. */
  primaryCpu: number;
  replicaCpu: number;
  failures: number;
  /** Share of the service's reads the standby answered (the replica-reading service only). */
  onStandby?: number;
}

/** Reads answered by each server so far, from the service's db_read_queries_total. */
async function readsBy(server: Server): Promise<{ primary: number; replica: number }> {
  const text = await (await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`)).text();
  const count = (label: string) =>
    Number(new RegExp(`^db_read_queries_total\\{server="${label}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { primary: count('primary'), replica: count('replica') };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  if (!args.includes('--no-build')) {
    console.log('building the service ...');
    buildService(process.cwd());
  }
  const pg = await startStreamingReplica();
  const servers: Server[] = [];
  try {
    const data = await buildHttpBenchData(pg.primaryUrl, CONTACTS);
    // Autovacuum and the checkpoint of the load, done now rather than during the measurements.
    await sql(pg.primaryUrl, ['VACUUM ANALYZE', 'CHECKPOINT']);
    const primary = await postmasterPid(pg.primaryUrl);
    const replica = await postmasterPid(pg.replicaUrl);
    const env = productionEnv(pg.primaryUrl);
    const onPrimary = await startService(process.cwd(), env, await freePort(), [], 'primary only');
    servers.push(onPrimary);
    const withReplica = await startService(
      process.cwd(),
      { ...env, DATABASE_READ_URL: pg.replicaUrl, DATABASE_READ_MAX_LAG_MS: MAX_LAG_MS },
      await freePort(),
      [],
      'replica reads',
    );
    servers.push(withReplica);
    // The standby has replayed the data set once it answers the same count.
    const headers = { 'x-service-api-key': data.key };
    for (let i = 0; ; i++) {
      const res = await fetch(`${withReplica.baseUrl}${ROUTES[0].path(data, 0)}`, { headers });
      const body = (await res.json()) as { meta?: { total: number } };
      if (body.meta?.total === CONTACTS) break;
      if (i > 300) throw new Error('the standby did not catch up');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    console.log(
      `measuring ${ROUNDS} rounds of ${DURATION} s per route, ${CONNECTIONS} connections, DATABASE_READ_MAX_LAG_MS=${MAX_LAG_MS}`,
    );

    const ticks0 = machineTicks();
    const results = new Map<string, Sample[]>();
    let counter = 0;
    const run = async (server: Server, route: Route): Promise<Sample> => {
      const cpu0 = { primary: postgresCpuMs(primary), replica: postgresCpuMs(replica) };
      const reads0 = await readsBy(server);
      const result = await autocannon({
        url: server.baseUrl,
        connections: CONNECTIONS,
        duration: DURATION,
        requests: [
          {
            method: 'GET',
            headers,
            setupRequest: (request) => ({ ...request, path: route.path(data, counter++) }),
          },
        ],
      });
      const served = Math.max(1, result.requests.total);
      const reads1 = await readsBy(server);
      const replicaReads = reads1.replica - reads0.replica;
      const allReads = replicaReads + reads1.primary - reads0.primary;
      return {
        onStandby: server === withReplica ? replicaReads / Math.max(1, allReads) : undefined,
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        primaryCpu: (postgresCpuMs(primary) - cpu0.primary) / served,
        replicaCpu: (postgresCpuMs(replica) - cpu0.replica) / served,
        failures: result.non2xx + result.errors + result.timeouts,
      };
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const route of ROUTES) {
        // Alternate which goes first, so neither always runs on a warmer cache.
        const order = round % 2 === 0 ? [onPrimary, withReplica] : [withReplica, onPrimary];
        for (const server of order) {
          const key = `${route.name}|${server.name}`;
          results.set(key, [...(results.get(key) ?? []), await run(server, route)]);
        }
      }
    }
    const ticks1 = machineTicks();

    console.log(
      `\n| route | reads on | req/s | p50 ms | p99 ms | primary CPU ms/req | standby CPU ms/req | failures | reads on standby | req/s vs primary | paired, per round |`,
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|');
    for (const route of ROUTES) {
      const of = (server: Server) => {
        const samples = results.get(`${route.name}|${server.name}`)!;
        const pick = (f: (s: Sample) => number) => median(samples.map(f));
        return {
          rps: pick((s) => s.rps),
          p50: pick((s) => s.p50),
          p99: pick((s) => s.p99),
          primaryCpu: pick((s) => s.primaryCpu),
          replicaCpu: pick((s) => s.replicaCpu),
          failures: samples.reduce((sum, s) => sum + s.failures, 0),
          onStandby: server === withReplica ? pick((s) => s.onStandby ?? 0) : undefined,
        };
      };
      const base = of(onPrimary);
      // The standby's req/s over the primary's within each round (the two ran back to back), then
      // the median: a drift of the machine's load moves both sides of a round alike.
      const mine = results.get(`${route.name}|${withReplica.name}`)!;
      const theirs = results.get(`${route.name}|${onPrimary.name}`)!;
      const paired = median(mine.map((s, i) => s.rps / theirs[i].rps));
      for (const server of [onPrimary, withReplica]) {
        const s = of(server);
        console.log(
          `| ${route.name} | ${server === onPrimary ? 'primary' : 'standby'} | ${fmt(s.rps, 0)} | ${s.p50} | ${s.p99} | ${fmt(s.primaryCpu, 3)} | ${fmt(s.replicaCpu, 3)} | ${s.failures} | ${s.onStandby === undefined ? '–' : `${fmt(s.onStandby * 100, 0)} %`} | ${fmt((s.rps / base.rps) * 100, 0)} % | ${server === onPrimary ? '–' : `${fmt(paired * 100, 0)} %`} |`,
        );
      }
    }
    const total = ticks1.total - ticks0.total;
    console.log(
      `\nsteal during the run: ${fmt(total ? ((ticks1.steal - ticks0.steal) / total) * 100 : 0)} %`,
    );
  } finally {
    for (const server of servers) await server.stop();
    await pg.destroy();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
