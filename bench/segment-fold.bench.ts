/**
 * `npm run bench:fold -- [events] [rounds]` (defaults 200 000 events, 3 rounds)
 *
 * What folding the segment rollups costs per event of traffic, apart from ingestion: builds
 * `events` tracking events of one funnel at the density of 10 million a month (about 14 hours for
 * 200 000) through EventsService with the fold job idle, then folds them whole (SegmentFolder.drain,
 * the job's round) `rounds` times, forgetting the folded rows between rounds. Prints per round the
 * wall time and the CPU per event of this process (the job's Node side) and of PostgreSQL, and the
 * rows and bytes written: the figures the fold adds to each event ingested, whenever it runs.
 */
import { DataSource } from 'typeorm';
import { EventsService, SegmentFolder } from '@app/metrics';
import { createApp } from '../apps/api/src/create-app';
import { benchAppEnv, calibrate, createBenchFunnel, fmt, startBenchDatabase } from './metrics/bench-env';
import { nodeCpuMs, postgresCpuMs, postmasterPid } from './metrics/cpu';
import { ingestTraffic } from './metrics/dataset';

const EVENTS = Number(process.argv[2] ?? 200_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const EVENTS_PER_MINUTE = 10_000_000 / (30 * 24 * 60);

async function main(): Promise<void> {
  const pg = await startBenchDatabase();
  // The job's own rounds stay idle: the bench runs the round itself.
  const env = benchAppEnv({
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    SEGMENT_FOLD_POLL_MS: '3600000',
  });
  const app = await createApp(env, { databaseUrl: pg.url }).catch(async (error) => {
    await pg.destroy();
    throw error;
  });
  try {
    await app.init();
    const dataSource = app.get(DataSource);
    const folder = app.get(SegmentFolder);
    const funnel = await createBenchFunnel(app, 'fold');
    // Ending five minutes back: every minute is past the seal (two minutes by default).
    const to = Date.now() - 5 * 60_000;
    const from = to - (EVENTS / EVENTS_PER_MINUTE) * 60_000;
    const built = await ingestTraffic(
      app.get(EventsService),
      { funnelId: funnel.funnelId, events: EVENTS, from, to, seed: 3, prefix: 'fold' },
      () => undefined,
    );
    await dataSource.query('VACUUM ANALYZE');
    await dataSource.query('CHECKPOINT');
    console.log(
      `${fmt(built.events, 0)} events, ${fmt(built.sessions, 0)} sessions over ${fmt((to - from) / 3_600_000)} hours`,
    );
    console.log(`machine: PostgreSQL summed 20M integers in ${fmt(await calibrate(pg.url), 0)} ms`);
    const postmaster = await postmasterPid(pg.url);
    for (let round = 1; round <= ROUNDS; round++) {
      await dataSource.query('DELETE FROM metric_segment_rollups');
      await dataSource.query('DELETE FROM metric_segment_folds');
      await dataSource.query('VACUUM ANALYZE metric_segment_rollups');
      const node0 = nodeCpuMs();
      const pg0 = postgresCpuMs(postmaster);
      const t0 = performance.now();
      await folder.drain();
      const wall = performance.now() - t0;
      const node = nodeCpuMs() - node0;
      const postgres = postgresCpuMs(postmaster) - pg0;
      const [rows]: { rows: string; bytes: string }[] = await dataSource.query(
        `SELECT count(*) AS rows, coalesce(sum(pg_column_size(sessions) + pg_column_size(events)), 0) AS bytes
         FROM metric_segment_rollups`,
      );
      const perEvent = (ms: number) => `${fmt((ms * 1000) / built.events)} µs`;
      console.log(
        `round ${round}: ${fmt(wall, 0)} ms, CPU per event: Node ${perEvent(node)}, PostgreSQL ${perEvent(postgres)}; ` +
          `${fmt(Number(rows.rows), 0)} rows (${fmt(Number(rows.rows) / built.events, 3)} per event), ` +
          `${fmt(Number(rows.bytes) / Number(rows.rows), 0)} bytes of cells a row`,
      );
    }
  } finally {
    await app.close();
    await pg.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
