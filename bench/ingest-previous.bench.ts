/**
 * `npm run bench:ingest-previous -- [events] [rounds]` (defaults 1 000 000 and 2)
 *
 * Ingestion of the previous release (scripts/previous-release.ts) and of this checkout, alternated
 * on the same data. In each round each build in turn gets a fresh database on one throwaway
 * PostgreSQL, its own migrations, a tenant through its admin CLI and bench:metrics' traffic
 * (`events` events over three days) through its HTTP API, four calls of 1000 events in flight,
 * with its fold running as in production; then its fold catches up and the database is vacuumed
 * and measured. Prints each run's events/s and bytes per event (the whole database, and the
 * metrics tables), and judges: this build's mean events/s at least 90 % of the previous release's,
 * its bytes per event no more.
 */
import { Client } from 'pg';
import { busiestHourEnd } from '../apps/admin/src/demo/demo-traffic';
import { fmt, onDatabase, sql, startBenchPostgres } from './metrics/bench-env';
import { createBenchTenant, releaseEnv, sendTraffic } from './metrics/release-traffic';
import { Build, checkoutPreviousRelease, folded, thisCheckout } from '../scripts/previous-release';

const EVENTS = Number(process.argv[2] ?? 1_000_000);
const ROUNDS = Number(process.argv[3] ?? 2);
const DAY = 86_400_000;

interface Run {
  build: string;
  eventsPerSecond: number;
  bytesPerEvent: number;
  metricBytesPerEvent: number;
}

async function main(): Promise<void> {
  const release = await checkoutPreviousRelease();
  const pg = await startBenchPostgres();
  const builds: [string, Build][] = [
    [`previous ${release.commit.slice(0, 7)}`, release],
    ['this checkout', thisCheckout],
  ];
  const now = busiestHourEnd(Date.now());
  const runs: Run[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++)
      for (const [build, checkout] of round % 2 ? builds : [...builds].reverse()) {
        const run = await ingestOnce(pg.url, checkout, `ingest_${round}_${runs.length}`, now);
        runs.push({ build, ...run });
        console.log(
          `round ${round}, ${build.padEnd(18)} ${fmt(run.eventsPerSecond, 0).padStart(7)} events/s, ` +
            `${fmt(run.bytesPerEvent, 0)} bytes per event (metrics tables ${fmt(run.metricBytesPerEvent, 0)})`,
        );
      }
  } finally {
    await pg.destroy();
    await release.remove();
  }
  const mean = (build: string, pick: (r: Run) => number) => {
    const of = runs.filter((r) => r.build === build).map(pick);
    return of.reduce((a, b) => a + b, 0) / of.length;
  };
  const [before, after] = builds.map(([build]) => build);
  const speed = mean(after, (r) => r.eventsPerSecond) / mean(before, (r) => r.eventsPerSecond);
  const bytes = mean(after, (r) => r.bytesPerEvent) / mean(before, (r) => r.bytesPerEvent);
  const misses = [
    ...(speed < 0.9 ? ['events/s below 90 % of the previous release'] : []),
    ...(bytes > 1 ? ['more bytes per event than the previous release'] : []),
  ];
  console.log(
    `\nthis checkout / previous release, means of ${ROUNDS} runs each: events/s ${fmt(speed, 3)}, bytes per event ${fmt(bytes, 3)}` +
      `\nVERDICT: ${misses.length ? `FAIL, ${misses.join('; ')}` : 'PASS, events/s within 10 % and no more bytes per event'}`,
  );
  if (misses.length) process.exitCode = 1;
}

/** One build's ingestion of the traffic into a new database `name`, then its size once folded and vacuumed. */
async function ingestOnce(url: string, checkout: Build, name: string, now: number) {
  const admin = onDatabase(url, 'postgres');
  await sql(admin, [`CREATE DATABASE ${name}`]);
  const database = onDatabase(url, name);
  const env = releaseEnv(database);
  await checkout.script(env, 'migrate.js');
  const tenant = await createBenchTenant(checkout, env, 'Ingest');
  const service = await checkout.start(env);
  let seconds: number;
  let events: number;
  try {
    const started = performance.now();
    ({ events } = await sendTraffic(service.baseUrl, tenant.key, tenant.funnelId, {
      events: EVENTS,
      from: now - 3 * DAY,
      to: now,
    }));
    seconds = (performance.now() - started) / 1000;
    await folded(database, { timeoutMs: 3_600_000 });
  } finally {
    await service.stop();
  }
  const db = new Client({ connectionString: database });
  await db.connect();
  try {
    await db.query('VACUUM ANALYZE');
    const { rows } = await db.query<{ total: string; metrics: string }>(
      `SELECT pg_database_size(current_database()) AS total,
              (SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c
               WHERE c.relkind IN ('r', 'p') AND c.relname LIKE 'metric\\_%') AS metrics`,
    );
    return {
      eventsPerSecond: events / seconds,
      bytesPerEvent: Number(rows[0].total) / events,
      metricBytesPerEvent: Number(rows[0].metrics) / events,
    };
  } finally {
    await db.end();
    await sql(admin, [`DROP DATABASE ${name}`]);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
