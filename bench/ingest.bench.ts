/**
 * `npm run bench:ingest -- [events] [inFlight,...]` (defaults 200 000 events; runs with 1, 4 and 8 requests in flight)
 *
 * One client sends batches of 500 tracking events to POST /v1/funnels/{id}/events over real HTTP,
 * to the service started as its own process (`npm start` code, rate limit raised) on a throwaway
 * PostgreSQL. Traffic has the density of 10 million events a month (about 230 a minute), in time
 * order. Prints events/s, request latency, CPU per event of the service and of PostgreSQL, and
 * checks that every session was counted. After each run the segment fold catches up and the
 * database is vacuumed (each reported with its CPU), so every run starts on a settled database.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { AuthModule } from '@app/auth';
import { CoreModule } from '@app/core';
import { WorkspacesModule } from '@app/workspaces';
import { createRandom } from '../apps/admin/src/demo/demo-data';
import { demoTraffic, RawEvent } from '../apps/admin/src/demo/demo-traffic';
import { databaseSchema } from '../db/schema';
import {
  BENCH_PAGES,
  BenchFunnel,
  calibrate,
  createBenchFunnel,
  fmt,
  percentile,
  startBenchDatabase,
} from './metrics/bench-env';
import { postgresCpuMs, postmasterPid, processCpuMs } from './metrics/cpu';

const EVENTS = Number(process.argv[2] ?? 200_000);
// Requests in flight per measured run, e.g. `4` or `1,4`.
const IN_FLIGHT = (process.argv[3] ?? '1,4,8').split(',').map(Number);
const BATCH = 500;
const EVENTS_PER_MINUTE = 10_000_000 / (30 * 24 * 60);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function startService(databaseUrl: string, port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      join(__dirname, '..', 'scripts', 'start.js'),
    ],
    {
      env: {
        ...process.env,
        NODE_ENV: 'development',
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        RATE_LIMIT_PER_MINUTE: '100000000',
        LOG_LEVEL: 'warn',
        // A placeholder identity provider: no development IdP is started, MCP is not used here.
        IDP_URL: 'https://idp.invalid',
        OAUTH_CLIENT_ID: 'bench',
        OAUTH_AUDIENCE: 'https://bench.invalid',
        OAUTH_CLAIM_NAMESPACE: 'https://bench.invalid',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  for (let attempt = 0; attempt < 120; attempt++) {
    const ready = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return child;
    await new Promise((r) => setTimeout(r, 500));
  }
  child.kill();
  throw new Error('the service did not start');
}

/** Batches of 500 events of sessions in start-time order ending now, serialised up front. */
function batches(
  count: number,
  seed: number,
  prefix: string,
): { bodies: string[]; sessions: number; from: number; to: number } {
  const to = Date.now() - 60_000;
  const from = to - (count / EVENTS_PER_MINUTE) * 60_000;
  const bodies: string[] = [];
  let batch: RawEvent[] = [];
  let sessions = 0;
  let total = 0;
  for (const session of demoTraffic({
    pages: BENCH_PAGES,
    from,
    to,
    // More sessions than needed (about 7.8 events each); the loop stops at `count` events.
    sessions: Math.ceil(count / 6),
    random: createRandom(seed),
    prefix,
  })) {
    if (total >= count) break;
    sessions++;
    for (const event of session) {
      batch.push(event);
      total++;
      if (batch.length === BATCH) {
        bodies.push(JSON.stringify({ events: batch }));
        batch = [];
      }
    }
  }
  if (batch.length) bodies.push(JSON.stringify({ events: batch }));
  return { bodies, sessions, from, to };
}

async function main(): Promise<void> {
  const pg = await startBenchDatabase();
  const port = await freePort();
  const service = await startService(pg.url, port).catch(async (error) => {
    await pg.destroy();
    throw error;
  });
  @Module({
    imports: [CoreModule.forRoot({ databaseUrl: pg.url }, databaseSchema), AuthModule, WorkspacesModule],
  })
  class SetupModule {}
  const setup = await NestFactory.createApplicationContext(SetupModule, { logger: ['error'] });
  try {
    const postmaster = await postmasterPid(pg.url);
    /** Sends every batch of `plan` with `inFlight` requests in flight; returns what it measured. */
    const run = async (inFlight: number, plan: ReturnType<typeof batches>, funnel: BenchFunnel) => {
      const url = `http://127.0.0.1:${port}/v1/funnels/${funnel.funnelId}/events`;
      const latencies: number[] = [];
      let next = 0;
      let accepted = 0;
      const send = async () => {
        for (let i = next++; i < plan.bodies.length; i = next++) {
          const t0 = performance.now();
          const res = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-service-api-key': funnel.key },
            body: plan.bodies[i],
          });
          const body = (await res.json()) as { data?: { accepted: number } };
          if (res.status !== 202) throw new Error(`batch ${i}: ${res.status} ${JSON.stringify(body)}`);
          accepted += body.data?.accepted ?? 0;
          latencies.push(performance.now() - t0);
        }
      };
      const cpu0 = { service: processCpuMs(service.pid as number), pg: postgresCpuMs(postmaster) };
      const started = performance.now();
      await Promise.all(Array.from({ length: inFlight }, send));
      const seconds = (performance.now() - started) / 1000;
      const cpu = {
        service: processCpuMs(service.pid as number) - cpu0.service,
        pg: postgresCpuMs(postmaster) - cpu0.pg,
      };
      return { accepted, seconds, cpu, latencies: latencies.sort((a, b) => a - b) };
    };
    /**
     * Waits until the segment fold of the service (its job, every 10 s) has folded the funnel's
     * traffic up to the seal (two minutes back) and every change the traffic recorded behind the
     * seal: what it left for after the run, with the CPU it took.
     */
    const foldedAfter = async (funnel: BenchFunnel, to: number) => {
      const cpu0 = { service: processCpuMs(service.pid as number), pg: postgresCpuMs(postmaster) };
      const started = performance.now();
      const sealed = Math.floor((to - 120_000) / 60_000) * 60_000;
      for (;;) {
        // A build without the segment fold (its table missing) has nothing to wait for.
        const folds: { folded_to: Date | null }[] | null = await setup
          .get(DataSource)
          .query(
            `SELECT f.folded_to FROM metric_segment_folds f WHERE f.funnel_id = $1
               AND NOT EXISTS (SELECT 1 FROM metric_segment_changes c WHERE c.funnel_id = f.funnel_id)`,
            [funnel.funnelId],
          )
          .catch((error: { code?: string }) => {
            if (error.code === '42P01') return null;
            throw error;
          });
        if (!folds || (folds[0]?.folded_to && folds[0].folded_to.getTime() >= sealed)) break;
        if (performance.now() - started > 300_000)
          throw new Error('the segment fold did not catch up in 5 minutes');
        await new Promise((r) => setTimeout(r, 200));
      }
      return {
        seconds: (performance.now() - started) / 1000,
        service: processCpuMs(service.pid as number) - cpu0.service,
        pg: postgresCpuMs(postmaster) - cpu0.pg,
      };
    };

    /**
     * Vacuums and analyzes the database after a run and its fold, with the CPU it took: what the
     * run and its fold wrote (the fold catches up on the whole run at once, in a minute of work
     * that live traffic spreads over hours) is then not vacuumed by autovacuum during the next
     * measured run. Autovacuum that a run's own writes start during it still counts in the run.
     */
    const vacuumed = async () => {
      const cpu0 = postgresCpuMs(postmaster);
      const started = performance.now();
      const client = new Client({ connectionString: pg.url });
      await client.connect();
      try {
        await client.query('VACUUM (ANALYZE)');
      } finally {
        await client.end();
      }
      return { seconds: (performance.now() - started) / 1000, pg: postgresCpuMs(postmaster) - cpu0 };
    };

    // Warm-up on its own funnel, as large as a measured run: connections, prepared statements, the
    // month's partition, and autovacuum catching up with tables that were just created (the first
    // run after the start costs PostgreSQL about twice the CPU per event of the following ones).
    const warmup = await createBenchFunnel(setup, 'warm-up');
    const warmupPlan = batches(EVENTS, 9, 'w-');
    await run(4, warmupPlan, warmup);
    // Its fold too, so that none of it runs during the measured runs.
    await foldedAfter(warmup, warmupPlan.to);
    await vacuumed();

    for (const [round, inFlight] of IN_FLIGHT.entries()) {
      const funnel = await createBenchFunnel(setup, `ingest-${inFlight}`);
      const plan = batches(EVENTS, 10 + round, `r${round}-`);
      const { accepted, seconds, cpu, latencies } = await run(inFlight, plan, funnel);
      const fold = await foldedAfter(funnel, plan.to);
      const vacuum = await vacuumed();
      const query = `from=${new Date(plan.from).toISOString()}&to=${new Date(plan.to).toISOString()}`;
      const sessions = await fetch(
        `http://127.0.0.1:${port}/v1/funnels/${funnel.funnelId}/metrics/kpis/kpi_total_sessions?${query}`,
        { headers: { 'x-service-api-key': funnel.key } },
      ).then((r) => r.json() as Promise<{ data: { value: number } }>);
      console.log(
        `\n${inFlight} request(s) in flight: ${fmt(accepted, 0)} events in ${plan.bodies.length} batches of ${BATCH} in ${fmt(seconds)} s` +
          ` = ${fmt(accepted / seconds, 0)} events/s` +
          `\n  request latency p50 ${fmt(percentile(latencies, 50))} ms, p95 ${fmt(percentile(latencies, 95))} ms` +
          `\n  CPU per event: service ${fmt((cpu.service * 1000) / accepted)} µs, PostgreSQL ${fmt((cpu.pg * 1000) / accepted)} µs` +
          `\n  kpi_total_sessions over the traffic: ${fmt(sessions.data.value, 0)} (sessions sent: ${fmt(plan.sessions, 0)})` +
          `\n  segment rollups folded to the seal ${fmt(fold.seconds)} s after the last batch; CPU meanwhile per event: ` +
          `service ${fmt((fold.service * 1000) / accepted)} µs, PostgreSQL ${fmt((fold.pg * 1000) / accepted)} µs` +
          `\n  VACUUM (ANALYZE) of the database afterwards ${fmt(vacuum.seconds)} s; PostgreSQL CPU per event ${fmt((vacuum.pg * 1000) / accepted)} µs`,
      );
    }
    // Last, so its own CPU time is not counted above.
    console.log(
      `\nmachine check: PostgreSQL summed 20M integers in ${fmt(await calibrate(pg.url), 0)} ms (about 1500 ms on an idle modern core)`,
    );
  } finally {
    await setup.close();
    service.kill('SIGTERM');
    await new Promise((r) => service.once('exit', r));
    await pg.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
