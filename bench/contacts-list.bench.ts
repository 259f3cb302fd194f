/**
 * `npm run bench:contacts -- [contacts]` (default 1 000 000)
 *
 * GET /v1/funnels/{funnelId}/contacts over real HTTP against a funnel of `contacts` contacts (plus a
 * neighbour funnel of a tenth of that, so the funnel_id prefix of the sort indexes matters), in a
 * throwaway PostgreSQL. Prints p50/p95 latency per sort order and page depth, the plans of the
 * page query (index-only scan on the sort index, no sort node) and what a COUNT(*) per request
 * would have cost next to the kept count.
 */
import { performance } from 'node:perf_hooks';
import { SingleBar, Presets } from 'cli-progress';
import { DataSource } from 'typeorm';
import { ApiKeysService, CompaniesService, PERMISSIONS } from '@app/auth';
import { dataSourceOptions, runMigrations, validateEnv } from '@app/core';
import { startThrowawayPostgres } from '@app/core/database/throwaway-postgres';
import { FunnelsService, WorkspacesService } from '@app/workspaces';
import { createApp } from '../apps/api/src/create-app';

const CONTACTS = Number(process.argv[2] ?? 1_000_000);
const BATCH = 50_000;
const LIMIT = 50;
// The deepest page sits in the middle of the funnel (OFFSET of half the contacts).
const PAGES = [0, 10, 100, 1_000, Math.floor(CONTACTS / LIMIT / 2)].filter(
  (p, i, all) => p * LIMIT < CONTACTS && all.indexOf(p) === i,
);
const SORTS = [
  ['ps_converted_at', -1],
  ['ps_converted_at', 1],
  ['email', 1],
  ['firstName', 1],
  ['lastName', -1],
] as const;

const FIRST = [
  'Anna',
  'Ben',
  'Clara',
  'David',
  'Emma',
  'Felix',
  'Greta',
  'Hannah',
  'Jonas',
  'Lea',
  'Lukas',
  'Mia',
];
const LAST = [
  'Müller',
  'Schmidt',
  'Schneider',
  'Fischer',
  'Weber',
  'Meyer',
  'Wagner',
  'Becker',
  'Schulz',
  'Hoffmann',
];

async function main(): Promise<void> {
  const pg = await startThrowawayPostgres();
  try {
    await runMigrations(pg.url);
    const env = validateEnv({ NODE_ENV: 'test', LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '1000000' });
    const app = await createApp(env, { databaseUrl: pg.url });
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    const baseUrl = `http://127.0.0.1:${port}`;
    try {
      const company = await app.get(CompaniesService).create('Bench');
      const workspace = await app.get(WorkspacesService).create(company.id, 'Bench');
      const funnels = app.get(FunnelsService);
      const big = await funnels.create({ workspaceId: workspace.id, name: 'Big funnel' });
      const neighbour = await funnels.create({ workspaceId: workspace.id, name: 'Neighbour' });
      const { key } = await app.get(ApiKeysService).create(company.id, [...PERMISSIONS]);

      const ds = await new DataSource({ ...dataSourceOptions(pg.url), extra: { max: 2 } }).initialize();
      try {
        await load(ds, company.id, neighbour.id, Math.floor(CONTACTS / 10), 'neighbour');
        await load(ds, company.id, big.id, CONTACTS, 'big funnel');
        console.log('VACUUM ANALYZE contacts ...');
        await ds.query('VACUUM ANALYZE contacts');
        // Flush the load now, so its write-back does not land in the first measurements.
        await ds.query('CHECKPOINT');

        await measure(baseUrl, key, big.id);
        await explain(ds, big.id);
        await compareCount(ds, big.id);
      } finally {
        await ds.destroy();
      }
    } finally {
      await app.close();
    }
  } finally {
    await pg.destroy();
  }
}

/** Bulk insert through SQL (the count triggers run once per statement), with a progress bar. */
async function load(ds: DataSource, companyId: string, funnelId: string, count: number, label: string) {
  const bar = new SingleBar(
    {
      format: `loading ${label} [{bar}] {value}/{total} contacts {eta}s left`,
      // Also shown (every 5 s) when the output is a log, not a terminal.
      noTTYOutput: true,
      notTTYSchedule: 5000,
    },
    Presets.shades_classic,
  );
  bar.start(count, 0);
  for (let start = 0; start < count; start += BATCH) {
    const size = Math.min(BATCH, count - start);
    // Realistic spread: ties on names, ~3% without email, ~2% never converted, a year of conversions.
    await ds.query(
      `INSERT INTO contacts (funnel_id, company_id, status, email, first_name, last_name, converted_at, meta)
       SELECT $1, $2, (ARRAY['lead','converted'])[1 + (i % 2)],
              CASE WHEN i % 33 = 0 THEN NULL ELSE 'c' || i || '@example.com' END,
              ($4::text[])[1 + (i * 7) % array_length($4::text[], 1)],
              CASE WHEN i % 17 = 0 THEN NULL ELSE ($5::text[])[1 + (i * 13) % array_length($5::text[], 1)] END,
              CASE WHEN i % 50 = 0 THEN NULL ELSE now() - (random() * interval '365 days') END,
              '{"ps_source":"funnel"}'::jsonb
       FROM generate_series($3::int, $3::int + $6::int - 1) AS i`,
      [funnelId, companyId, start, FIRST, LAST, size],
    );
    bar.update(start + size);
  }
  bar.stop();
}

async function measure(baseUrl: string, key: string, funnelId: string) {
  console.log(`\nGET /v1/funnels/{funnelId}/contacts, limit=${LIMIT}, ${CONTACTS} contacts, real HTTP (ms):`);
  console.log('sortField         order   page      p50      p95   (n)');
  // The first sort order again at the end shows the numbers do not depend on the order measured.
  for (const [sortField, sortOrder] of [...SORTS, SORTS[0]]) {
    for (const page of PAGES) {
      const url = `${baseUrl}/v1/funnels/${funnelId}/contacts?limit=${LIMIT}&page=${page}&sortField=${sortField}&sortOrder=${sortOrder}`;
      const runs = page >= 10_000 ? 10 : 40;
      const times: number[] = [];
      for (let i = 0; i < runs + 3; i++) {
        const started = performance.now();
        const res = await fetch(url, { headers: { 'x-service-api-key': key } });
        const body = (await res.json()) as { data: unknown[]; meta: { total: number } };
        if (res.status !== 200 || body.data.length !== LIMIT)
          throw new Error(`unexpected answer ${res.status}`);
        if (i >= 3) times.push(performance.now() - started); // the first runs warm the cache
      }
      times.sort((a, b) => a - b);
      const pct = (p: number) =>
        times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))].toFixed(1);
      console.log(
        `${sortField.padEnd(17)} ${String(sortOrder).padStart(5)} ${String(page).padStart(6)} ${pct(50).padStart(8)} ${pct(95).padStart(8)}   (${runs})`,
      );
    }
  }
}

async function explain(ds: DataSource, funnelId: string) {
  const cases = [
    ['converted_at DESC NULLS LAST, id DESC', 0],
    ['last_name ASC NULLS FIRST, id ASC', 0],
    ['converted_at DESC NULLS LAST, id DESC', PAGES[PAGES.length - 1] * LIMIT],
  ] as const;
  for (const [order, offset] of cases) {
    const plan: { 'QUERY PLAN': string }[] = await ds.query(
      `EXPLAIN (ANALYZE, BUFFERS) SELECT id FROM contacts WHERE funnel_id = $1 ORDER BY ${order} LIMIT ${LIMIT + 1} OFFSET ${offset}`,
      [funnelId],
    );
    console.log(`\nplan for ORDER BY ${order} OFFSET ${offset}:`);
    console.log(plan.map((row) => `  ${row['QUERY PLAN']}`).join('\n'));
  }
}

async function compareCount(ds: DataSource, funnelId: string) {
  const time = async (sql: string) => {
    const started = performance.now();
    await ds.query(sql, [funnelId]);
    return (performance.now() - started).toFixed(1);
  };
  await time('SELECT count(*) FROM contacts WHERE funnel_id = $1');
  console.log(
    `\ntotal: kept count ${await time('SELECT contact_count FROM funnel_contact_counts WHERE funnel_id = $1')} ms, ` +
      `COUNT(*) ${await time('SELECT count(*) FROM contacts WHERE funnel_id = $1')} ms (warm)`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
