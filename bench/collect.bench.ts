/**
 * `npm run bench:collect -- [--duration 8] [--connections 20] [--rounds 3] [--no-build] [--profile dir]`
 *
 * Public collection (`POST /v1/funnels/{funnelId}/collect`) of the production build beside a
 * minimal express + pg reference that inserts each request's events (bench/collect), same run,
 * same throwaway PostgreSQL, interleaved rounds. Requests carry 1 to 3 events of distinct
 * simulated visitors (a session start with UTM, a page view, a click), as text/plain from an
 * allowed origin, limits raised out of reach. Prints the peak req/s of each (medians over the
 * rounds), then each one's p99 at half the service's peak rate, and the tracker's size gzipped.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { cpuSeconds, cpuSince, postgresPids } from './collect/cpu';
import { fmt, sql, startBenchDatabase } from './metrics/bench-env';
import { collectingFunnel, startBenchService } from './collect/setup';
import { buildService, forkServer, freePort, Server } from './http/processes';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const DURATION = Number(option('duration', '8'));
const CONNECTIONS = Number(option('connections', '20'));
const ROUNDS = Number(option('rounds', '3'));
// A directory to write the service's CPU profile into (node --cpu-prof), read with DevTools.
const PROFILE = option('profile', '');
const ORIGIN = 'https://bench.example.com';
const UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const ROOT = process.cwd();

/** The i-th request's body: 1 to 3 events of visitor i. */
function body(run: string, i: number): string {
  const sessionId = `${run}-${i}`;
  const at = new Date().toISOString();
  const events: object[] = [
    { type: 'session_start', sessionId, occurredAt: at, utm: { source: ['ads', 'mail', 'social'][i % 3] } },
    { type: 'page_view', sessionId, occurredAt: at, pageSlug: 'start', timeOnPageMs: 1000 + (i % 5000) },
    {
      type: 'button_click',
      sessionId,
      occurredAt: at,
      pageSlug: 'start',
      buttonId: 'cta',
      buttonLabel: 'Go',
    },
  ];
  return JSON.stringify({ events: events.slice(0, 1 + (i % 3)) });
}

/** Once the table's rows stop growing: the service answers before it writes. */
async function writesDone(url: string, table: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    let last = -1;
    for (;;) {
      const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
      if (Number(rows[0].n) === last) return;
      last = Number(rows[0].n);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await client.end();
  }
}

interface Target {
  url: string;
  funnelId: string;
}

/** One load of a server; its req/s, p99 and the CPU a request took in it and in PostgreSQL. */
async function load(server: Server, target: Target, run: string, rate?: number) {
  let counter = 0;
  const [before, pgBefore] = [cpuSeconds([server.pid]), cpuSeconds(await postgresPids(target.url))];
  const result = await autocannon({
    url: server.baseUrl,
    connections: CONNECTIONS,
    duration: DURATION,
    ...(rate ? { overallRate: rate } : {}),
    requests: [
      {
        method: 'POST',
        path: `/v1/funnels/${target.funnelId}/collect`,
        headers: { origin: ORIGIN, 'user-agent': UA, 'content-type': 'text/plain;charset=UTF-8' },
        setupRequest: (request) => ({ ...request, body: body(run, counter++) }),
      },
    ],
  });
  const failed = result.non2xx + result.errors;
  if (failed) throw new Error(`${server.name}: ${failed} requests failed`);
  await writesDone(target.url, server.name === 'service' ? 'metric_events' : 'reference_events');
  const perRequest = (seconds: number) => (seconds * 1000) / result.requests.total;
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    cpuMs: perRequest(cpuSince(before, cpuSeconds([server.pid]))),
    pgCpuMs: perRequest(cpuSince(pgBefore, cpuSeconds(await postgresPids(target.url)))),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const tracker = readFileSync(join(ROOT, 'libs/collection/src/tracker/tracker.min.js'));
  console.log(
    `tracker: ${tracker.length} B, ${gzipSync(tracker, { level: 9 }).length} B gzipped (target ≤ 1500)`,
  );
  if (!args.includes('--no-build')) buildService(ROOT);
  const pg = await startBenchDatabase();
  const servers: Server[] = [];
  try {
    const funnelId = collectingFunnel(pg.url, ORIGIN);
    await sql(pg.url, [
      `CREATE TABLE reference_events (funnel_id uuid, session_id text, type text, occurred_at timestamptz, payload json)`,
    ]);
    const limits = { COLLECT_LIMIT_PER_ADDRESS: '1000000000', COLLECT_LIMIT_PER_FUNNEL: '1000000000' };
    const service = await startBenchService(pg.url, limits, PROFILE);
    const referencePort = await freePort();
    const reference = await forkServer(
      'reference',
      join(__dirname, 'collect/express-reference.ts'),
      [pg.url, String(referencePort)],
      referencePort,
    );
    servers.push(service, reference);

    const target = { url: pg.url, funnelId };
    const peaks = new Map<string, Awaited<ReturnType<typeof load>>[]>([
      ['service', []],
      ['reference', []],
    ]);
    for (let round = 0; round < ROUNDS; round++) {
      for (const server of [service, reference]) {
        const figures = await load(server, target, `${server.name}-peak-${round}`);
        peaks.get(server.name)!.push(figures);
        console.log(
          `round ${round + 1} ${server.name}: ${fmt(figures.rps, 0)} req/s; CPU a request ${fmt(figures.cpuMs, 3)} ms + PostgreSQL ${fmt(figures.pgCpuMs, 3)} ms; load average ${loadavg()[0].toFixed(1)}`,
        );
      }
    }
    const servicePeak = median(peaks.get('service')!.map((f) => f.rps));
    const referencePeak = median(peaks.get('reference')!.map((f) => f.rps));
    console.log(
      `peak req/s (median of ${ROUNDS}): service ${fmt(servicePeak, 0)}, reference ${fmt(referencePeak, 0)}, ratio ${fmt(servicePeak / referencePeak, 2)} (target ≥ 1.5)`,
    );
    const half = Math.max(1, Math.round(servicePeak / 2));
    for (const server of [service, reference]) {
      const { p99 } = await load(server, target, `${server.name}-half`, half);
      console.log(`${server.name} at ${half} req/s: p99 ${p99} ms (target ≤ 50 for the service)`);
    }
  } finally {
    for (const server of servers) await server.stop();
    await pg.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
