/**
 * `npm run bench:http -- [--contacts 100180] [--duration 8] [--connections 20] [--rounds 3]
 *                        [--service-dir DIR] [--baseline-dir DIR] [--no-build] [--profile] [--dev]
 *                        [--routes "list page 0,workspaces"] [--via pgbouncer]`
 *
 * Builds a data set in a throwaway PostgreSQL (a funnel of `contacts` contacts), starts the
 * production build (dist/, NODE_ENV=production, rate limiting on) and drives every REST route over
 * loopback with autocannon, interleaved, for several rounds. The read routes run next to two
 * references in the same run: a minimal express + pg server with the straightforward SQL, and a
 * bare node:http server that sends the same bytes from memory (the ceiling); their bodies are
 * checked byte-identical first. Prints req/s, p50, p99 and peak RSS per route (medians over the
 * rounds), the CPU each request cost the server and PostgreSQL, the ratios, and the host's steal
 * time. `--service-dir` measures another checkout's
 * build against the same references; `--baseline-dir` also runs another checkout's build (built
 * before) on every route, interleaved, for before/after ratios in one run; `--profile` writes the
 * service's CPU profile and prints its top entries; `--dev` runs the service as `npm start` does
 * (sources compiled as they load, NODE_ENV=development) instead of the production build;
 * `--via pgbouncer` runs a second instance of the same build through Debian's PgBouncer in
 * transaction pooling (DATABASE_POOL_MODE=transaction, DATABASE_DIRECT_URL set) in the baseline's
 * column, so `service/baseline` is direct ÷ through the pooler; with `--prepared`, through the
 * PgBouncer at PGBOUNCER_PREPARED_BIN (1.21 or later) with DATABASE_POOLER_PREPARED_STATEMENTS=true. `--alone` pauses (SIGSTOP) every
 * other server, and the pooler unless it serves the one measured, while a server is measured: their
 * timers, collections and background jobs then take no CPU from it on a small machine.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { fmt, startBenchDatabase } from './metrics/bench-env';
import { machineTicks, postgresCpuMs, postmasterPid, processCpuMs } from './metrics/cpu';
import { buildHttpBenchData, HttpBenchData } from './http/dataset';
import {
  buildService,
  forkServer,
  freePort,
  productionEnv,
  rssMb,
  Server,
  startService,
} from './http/processes';
import { printProfile } from './http/profile';
import { PgBouncer, PREPARED_PGBOUNCER, startPgBouncer } from '../test/support/pgbouncer';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const CONTACTS = Number(option('contacts', '100180'));
const DURATION = Number(option('duration', '8'));
const CONNECTIONS = Number(option('connections', '20'));
const ROUNDS = Number(option('rounds', '3'));
const SERVICE_DIR = resolve(option('service-dir', process.cwd()));
const BASELINE_DIR = args.includes('--baseline-dir') ? resolve(option('baseline-dir', '')) : undefined;
const PROFILE = args.includes('--profile');
// The service as `npm start` runs it (sources, development) instead of the production build.
const DEVELOPMENT = args.includes('--dev');
const VIA = args.includes('--via') ? option('via', '') : undefined;
const ALONE = args.includes('--alone');
// Through a PgBouncer that keeps prepared statements (PGBOUNCER_PREPARED_BIN), the service naming them.
const PREPARED = args.includes('--prepared');
if (PREPARED && !PREPARED_PGBOUNCER)
  throw new Error('--prepared needs PGBOUNCER_PREPARED_BIN (scripts/build-pgbouncer.sh)');
if (VIA !== undefined && VIA !== 'pgbouncer') throw new Error('--via takes pgbouncer');
if (VIA && args.includes('--baseline-dir')) throw new Error('--via and --baseline-dir share a column');
// Only these routes (comma-separated names), e.g. while working on one of them.
const ONLY = args.includes('--routes')
  ? option('routes', '')
      .split(',')
      .map((r) => r.trim())
  : undefined;

interface Route {
  name: string;
  method: 'GET' | 'POST' | 'PUT';
  path: (d: HttpBenchData, i: number) => string;
  body?: (i: number) => string;
  /** Also measured on the references. */
  compared?: boolean;
}

const DAY = 86_400_000;
// 400 pages of 50: 20,000 contacts, more than the service's render cache holds (about 11,000).
const TURN_PAGES = Math.max(1, Math.min(400, Math.floor(CONTACTS / 50)));
const window = () =>
  `from=${new Date(Date.now() - 30 * DAY).toISOString()}&to=${new Date().toISOString()}&offset=-120`;
const ALL_ROUTES: Route[] = [
  {
    name: 'list page 0',
    method: 'GET',
    path: (d) => `/v1/funnels/${d.funnelId}/contacts?page=0&limit=50`,
    compared: true,
  },
  {
    name: 'list page 100',
    method: 'GET',
    path: (d) => `/v1/funnels/${d.funnelId}/contacts?page=100&limit=50`,
    compared: true,
  },
  {
    // Each request another page, over more contacts than the service keeps presented: every
    // contact is read and presented again (the render cache misses).
    name: 'list pages in turn',
    method: 'GET',
    path: (d, i) => `/v1/funnels/${d.funnelId}/contacts?page=${i % TURN_PAGES}&limit=50`,
    compared: true,
  },
  {
    name: 'single contact',
    method: 'GET',
    path: (d) => `/v1/funnels/${d.funnelId}/contacts/${d.contactIds[0]}`,
    compared: true,
  },
  {
    // Each request another contact, over more than the render cache holds: each read is a miss,
    // the full statement parsed and planned (unnamed behind a transaction pooler).
    name: 'single contacts in turn',
    method: 'GET',
    path: (d, i) => `/v1/funnels/${d.funnelId}/contacts/${d.contactIds[i % d.contactIds.length]}`,
  },
  { name: 'workspaces', method: 'GET', path: () => '/v1/workspaces', compared: true },
  {
    name: 'create contact',
    method: 'POST',
    path: (d) => `/v1/funnels/${d.otherFunnelId}/contacts`,
    body: (i) => JSON.stringify({ email: `new-${i}@example.com`, firstName: 'Ada', lastName: 'Lovelace' }),
  },
  {
    name: 'PUT values',
    method: 'PUT',
    path: (d, i) => `/v1/funnels/${d.funnelId}/contacts/${d.contactIds[i % d.contactIds.length]}/values`,
    body: (i) => JSON.stringify({ fieldName: 'city', value: i % 2 ? 'Hamburg' : 'Berlin' }),
  },
  {
    name: 'events (1 page view)',
    method: 'POST',
    path: (d) => `/v1/funnels/${d.otherFunnelId}/events`,
    body: (i) =>
      JSON.stringify({
        events: [
          { type: 'page_view', sessionId: `s-${i}`, occurredAt: new Date().toISOString(), pageSlug: 'start' },
        ],
      }),
  },
  {
    name: 'KPI sessions',
    method: 'GET',
    path: (d) => `/v1/funnels/${d.funnelId}/metrics/kpis/kpi_total_sessions?${window()}`,
  },
  {
    name: 'chart devices',
    method: 'GET',
    path: (d) => `/v1/funnels/${d.funnelId}/metrics/charts/chart_visitor_devices?${window()}`,
  },
];

const ROUTES = ONLY ? ALL_ROUTES.filter((r) => ONLY.includes(r.name)) : ALL_ROUTES;
if (!ROUTES.length) throw new Error(`--routes names none of: ${ALL_ROUTES.map((r) => r.name).join(', ')}`);

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  rss: number;
  /** CPU milliseconds per request: the server's process, and PostgreSQL's (all its processes). */
  serverCpu: number;
  pgCpu: number;
  /** CPU milliseconds per request of the pooler in front of this server (0 without one). */
  poolerCpu: number;
  failures: number;
}

async function main(): Promise<void> {
  if (!args.includes('--no-build') && !DEVELOPMENT) {
    console.log(`building the service in ${SERVICE_DIR} ...`);
    buildService(SERVICE_DIR);
  }
  const pg = await startBenchDatabase();
  const servers: Server[] = [];
  let bouncer: PgBouncer | undefined;
  try {
    const data = await buildHttpBenchData(pg.url, CONTACTS);
    const postmaster = await postmasterPid(pg.url);
    const profileDir = mkdtempSync(join(tmpdir(), 'bench-http-'));
    const serviceEnv = productionEnv(pg.url);
    const service = await startService(
      SERVICE_DIR,
      serviceEnv,
      await freePort(),
      PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
      'service',
      DEVELOPMENT,
    );
    servers.push(service);
    const expressPort = await freePort();
    const reference = await forkServer(
      'express + pg',
      join(__dirname, 'http/express-reference.ts'),
      [pg.url, String(expressPort)],
      expressPort,
    );
    servers.push(reference);

    const headers = { 'x-service-api-key': data.key, 'content-type': 'application/json' };
    const bodies: Record<string, string> = {};
    for (const route of ROUTES.filter((r) => r.compared)) {
      const path = route.path(data, 0);
      const [mine, theirs] = await Promise.all(
        [service, reference].map(async (s) => {
          const res = await fetch(s.baseUrl + path, { headers });
          return `${res.status} ${await res.text()}`;
        }),
      );
      if (mine !== theirs || !mine.startsWith('200 ')) {
        let at = 0;
        while (mine[at] === theirs[at]) at++;
        const around = (text: string) => text.slice(Math.max(0, at - 200), at + 200);
        throw new Error(
          `${route.name}: the bodies differ at ${at}\n service: ${around(mine)}\n express: ${around(theirs)}`,
        );
      }
      bodies[path] = mine.slice(4);
    }
    const bodiesFile = join(profileDir, 'bodies.json');
    writeFileSync(bodiesFile, JSON.stringify(bodies));
    const barePort = await freePort();
    servers.push(
      await forkServer(
        'node:http',
        join(__dirname, 'http/bare-reference.ts'),
        [bodiesFile, String(barePort)],
        barePort,
      ),
    );
    console.log(
      `bodies byte-identical on ${Object.keys(bodies).length} read routes; measuring ${ROUNDS} rounds of ${DURATION} s, ${CONNECTIONS} connections`,
    );

    const results = new Map<string, Sample[]>();
    let counter = 0;
    const paused = (server: Server) =>
      ALONE
        ? [
            ...servers.filter((s) => s !== server).map((s) => s.pid),
            ...(bouncer && server !== baseline ? [bouncer.pid] : []),
          ]
        : [];
    const run = async (server: Server, route: Route, duration: number) => {
      const others = paused(server);
      for (const pid of others) process.kill(pid, 'SIGSTOP');
      try {
        return await measure(server, route, duration);
      } finally {
        for (const pid of others) process.kill(pid, 'SIGCONT');
      }
    };
    const measure = async (server: Server, route: Route, duration: number) => {
      let peak = rssMb(server.pid);
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(server.pid))), 200);
      const pooler = server === baseline && bouncer ? bouncer.pid : undefined;
      const cpu0 = {
        server: processCpuMs(server.pid),
        pg: postgresCpuMs(postmaster),
        pooler: pooler ? processCpuMs(pooler) : 0,
      };
      const result = await autocannon({
        url: server.baseUrl,
        connections: CONNECTIONS,
        duration,
        requests: [
          {
            method: route.method,
            headers,
            setupRequest: (request) => {
              const i = counter++;
              return { ...request, path: route.path(data, i), body: route.body?.(i) };
            },
          },
        ],
      });
      clearInterval(sampler);
      const served = Math.max(1, result.requests.total);
      return {
        serverCpu: (processCpuMs(server.pid) - cpu0.server) / served,
        pgCpu: (postgresCpuMs(postmaster) - cpu0.pg) / served,
        poolerCpu: pooler ? (processCpuMs(pooler) - cpu0.pooler) / served : 0,
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        rss: peak,
        failures: result.non2xx + result.errors + result.timeouts,
      };
    };
    if (VIA) bouncer = await startPgBouncer(pg.url, PREPARED ? PREPARED_PGBOUNCER : undefined);
    const baseline = BASELINE_DIR
      ? await startService(BASELINE_DIR, serviceEnv, await freePort(), [], 'baseline')
      : bouncer
        ? await startService(
            SERVICE_DIR,
            {
              ...serviceEnv,
              DATABASE_URL: bouncer.urlFor(pg.url),
              DATABASE_POOL_MODE: 'transaction',
              DATABASE_DIRECT_URL: pg.url,
              DATABASE_POOLER_PREPARED_STATEMENTS: String(PREPARED),
            },
            await freePort(),
            [],
            'via pgbouncer',
            DEVELOPMENT,
          )
        : undefined;
    if (baseline) servers.push(baseline);
    const targets = (route: Route) =>
      servers.filter((s) => route.compared || s === service || s === baseline);

    console.log('warming up ...');
    for (const route of ROUTES) for (const server of targets(route)) await run(server, route, 2);
    const ticks = machineTicks();
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}/${ROUNDS}`);
      for (const route of ROUTES) {
        // Which server goes first alternates from round to round, so that neither always meets
        // the machine as the one before it left it.
        const order = round % 2 ? targets(route) : targets(route).reverse();
        for (const server of order) {
          const sample = await run(server, route, DURATION);
          const key = `${route.name}|${server.name}`;
          results.set(key, [...(results.get(key) ?? []), sample]);
        }
      }
    }
    const used = machineTicks();
    const steal = (100 * (used.steal - ticks.steal)) / Math.max(1, used.total - ticks.total);
    report(results, servers, baseline);
    console.log(
      `\nCPU time taken by other guests of the host (steal) during the measurements: ${fmt(steal, 1)} %` +
        `\nservice: ${SERVICE_DIR} (${DEVELOPMENT ? 'npm start: sources, NODE_ENV=development' : 'production build, NODE_ENV=production'}), ${CONTACTS} contacts, node ${process.version}` +
        (BASELINE_DIR ? `\nbaseline: ${BASELINE_DIR}` : '') +
        (VIA
          ? `\nbaseline: the same build through PgBouncer (transaction pooling${PREPARED ? `, ${PREPARED_PGBOUNCER} keeping the service's named statements` : ', statements unnamed'})`
          : ''),
    );
    if (PROFILE) {
      await service.stop();
      printProfile(profileDir);
    }
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await bouncer?.stop();
    await pg.destroy();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function report(results: Map<string, Sample[]>, servers: Server[], baseline?: Server): void {
  const cell = (s: Sample | undefined) =>
    s
      ? `${fmt(s.rps, 0).padStart(7)} ${fmt(s.p50, 0).padStart(4)} ${fmt(s.p99, 0).padStart(4)} ${fmt(s.rss, 0).padStart(4)}`
      : ''.padStart(22);
  const summary = (key: string): Sample | undefined => {
    const samples = results.get(key);
    if (!samples) return undefined;
    return {
      rps: median(samples.map((s) => s.rps)),
      p50: median(samples.map((s) => s.p50)),
      p99: median(samples.map((s) => s.p99)),
      rss: Math.max(...samples.map((s) => s.rss)),
      serverCpu: median(samples.map((s) => s.serverCpu)),
      pgCpu: median(samples.map((s) => s.pgCpu)),
      poolerCpu: median(samples.map((s) => s.poolerCpu)),
      failures: samples.reduce((sum, s) => sum + s.failures, 0),
    };
  };
  console.log(
    `\nmedian of the rounds: req/s, p50 and p99 in ms, peak RSS in MB\n${'route'.padEnd(22)}` +
      servers.map((s) => s.name.padStart(22)).join(' ') +
      '  service/express  service/node:http  service/baseline',
  );
  for (const route of ROUTES) {
    const cells = servers.map((s) => summary(`${route.name}|${s.name}`));
    const [mine, express, bare, baseline] = cells;
    const ratio = (other?: Sample) => (mine && other ? fmt(mine.rps / other.rps, 2) : '');
    const failures = cells.reduce((sum, c) => sum + (c?.failures ?? 0), 0);
    console.log(
      `${route.name.padEnd(22)}${cells.map(cell).join(' ')}  ${ratio(express).padStart(15)}  ${ratio(bare).padStart(17)}` +
        `  ${ratio(baseline).padStart(16)}` +
        (failures ? `  (${failures} failed requests)` : ''),
    );
  }
  // Where each request's cost goes: on 2 shared cores the servers, PostgreSQL and the load
  // generator compete, so CPU per request says more than req/s alone.
  const cpu = (s: Sample | undefined) =>
    s
      ? `${fmt(s.serverCpu, 2).padStart(8)} ${fmt(s.pgCpu, 2).padStart(8)}${s.poolerCpu ? ` +${fmt(s.poolerCpu, 2)}` : ''}`.padStart(
          22,
        )
      : ''.padStart(22);
  console.log(
    `\nCPU per request in ms (median of the rounds): the server's process, then PostgreSQL's\n${'route'.padEnd(22)}` +
      servers.map((s) => s.name.padStart(22)).join(' '),
  );
  for (const route of ROUTES) {
    console.log(
      `${route.name.padEnd(22)}${servers.map((s) => cpu(summary(`${route.name}|${s.name}`))).join(' ')}`,
    );
  }
  if (baseline) pairedRatios(results, servers[0], baseline);
}

/**
 * The service's req/s over the baseline's, round by round (the two ran one after the other in
 * each round), then the median per route and the geometric mean of those medians: a drift of the
 * machine's load over the run moves both sides of a round alike, where medians taken per side
 * apart can pair a quiet spell of one with a busy spell of the other.
 */
function pairedRatios(results: Map<string, Sample[]>, service: Server, baseline: Server): void {
  const medians: number[] = [];
  console.log(`\n${service.name} ÷ ${baseline.name}, req/s, per round (paired), then their median`);
  for (const route of ROUTES) {
    const mine = results.get(`${route.name}|${service.name}`) ?? [];
    const theirs = results.get(`${route.name}|${baseline.name}`) ?? [];
    const ratios = mine.map((s, i) => s.rps / theirs[i].rps);
    if (!ratios.length) continue;
    medians.push(median(ratios));
    console.log(
      `${route.name.padEnd(22)}${ratios.map((r) => fmt(r, 2).padStart(6)).join('')}   median ${fmt(median(ratios), 2)}`,
    );
  }
  const geomean = Math.exp(medians.reduce((sum, r) => sum + Math.log(r), 0) / medians.length);
  console.log(`geometric mean of the medians: ${fmt(geomean, 3)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
