/**
 * `npm run bench:contacts -- [contacts]` (default 1 000 000)
 *
 * GET /v1/funnels/{funnelId}/contacts over real HTTP against a funnel of `contacts` contacts (plus a
 * neighbour funnel of a tenth of that, so the funnel_id prefix of the sort indexes matters), in a
 * throwaway PostgreSQL. Prints p50/p95 latency per sort order and page depth, the same by cursor
 * (keyset) at depth 500 000 next to the first page, the plans of the page query (index-only scan on
 * the sort index, no sort node), of each filter and of a cursor page, and what a COUNT(*) per
 * request would have cost next to the kept count.
 */
import { performance } from 'node:perf_hooks';
import { SingleBar, Presets } from 'cli-progress';
import { DataSource } from 'typeorm';
import { ApiKeysService, CompaniesService, PERMISSIONS } from '@app/auth';
import { encodeCursor, NormalisedFilters, pageQueries, SortField, SortOrder } from '@app/contacts';
import { dataSourceOptions, runMigrations, startThrowawayPostgres, validateEnv } from '@app/core';
import { FunnelsService, WorkspacesService } from '@app/workspaces';
import { createApp } from '../apps/api/src/create-app';
import { databaseSchema } from '../db/schema';

const CONTACTS = Number(process.argv[2] ?? 1_000_000);
// `-- 1000000 cursor` skips the page-by-offset table (the slowest part) to measure the cursor only.
const CURSOR_ONLY = process.argv[3] === 'cursor';
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
  ['updatedAt', 1],
] as const;
// The cursor's depth: the issue's 500 000, or the middle of a smaller funnel.
const CURSOR_DEPTH = Math.min(500_000, Math.floor(CONTACTS / 2));

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
    await runMigrations(pg.url, databaseSchema);
    const env = validateEnv({ NODE_ENV: 'test', LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '1000000' });
    const app = await createApp(env, { databaseUrl: pg.url });
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    const baseUrl = `http://127.0.0.1:${port}`;
    try {
      const company = await app.get(CompaniesService).create('Bench');
      const workspace = await app.get(WorkspacesService).create(company.id, 'Bench');
      const funnels = app.get(FunnelsService);
      const big = await funnels.create({
        workspaceId: workspace.id,
        name: 'Big funnel',
        contactStatuses: ['lead', 'converted', 'customer'],
      });
      const neighbour = await funnels.create({ workspaceId: workspace.id, name: 'Neighbour' });
      const { key } = await app.get(ApiKeysService).create(company.id, [...PERMISSIONS]);

      const ds = await new DataSource({
        ...dataSourceOptions(pg.url, databaseSchema),
        extra: { max: 2 },
      }).initialize();
      try {
        await load(ds, company.id, neighbour.id, Math.floor(CONTACTS / 10), 'neighbour');
        await load(ds, company.id, big.id, CONTACTS, 'big funnel');
        console.log('VACUUM ANALYZE contacts ...');
        await ds.query('VACUUM ANALYZE contacts');
        // Flush the load now, so its write-back does not land in the first measurements.
        await ds.query('CHECKPOINT');

        if (!CURSOR_ONLY) await measure(baseUrl, key, big.id);
        await measureCursor(ds, baseUrl, key, big.id);
        await explain(ds, big.id);
        await explainFilters(ds, big.id);
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
    // Realistic spread: ties on names, ~3% without email, ~2% never converted, a year of conversions,
    // a phone on every third, ~5% in a third status, created over a year and changed since.
    await ds.query(
      `INSERT INTO contacts (funnel_id, company_id, status, email, phone, first_name, last_name, converted_at, meta,
                             created_at, updated_at)
       SELECT $1, $2, CASE WHEN i % 20 = 7 THEN 'customer' ELSE (ARRAY['lead','converted'])[1 + (i % 2)] END,
              CASE WHEN i % 33 = 0 THEN NULL ELSE 'c' || i || '@example.com' END,
              CASE WHEN i % 3 = 0 THEN '+49 151 ' || lpad(i::text, 8, '0') END,
              ($4::text[])[1 + (i * 7) % array_length($4::text[], 1)],
              CASE WHEN i % 17 = 0 THEN NULL ELSE ($5::text[])[1 + (i * 13) % array_length($5::text[], 1)] END,
              CASE WHEN i % 50 = 0 THEN NULL ELSE now() - (random() * interval '365 days') END,
              '{"ps_source":"funnel"}'::jsonb, created, created + random() * (now() - created)
       FROM generate_series($3::int, $3::int + $6::int - 1) AS i,
            LATERAL (SELECT now() - (random() * interval '365 days') AS created) AS c`,
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

/**
 * The first page and a page at CURSOR_DEPTH by cursor, per sort order. The cursor is the one the
 * API answers on the page before that depth (the row at the position, encoded the same way):
 * walking there page by page would only take longer to reach the same request.
 */
async function measureCursor(ds: DataSource, baseUrl: string, key: string, funnelId: string) {
  console.log(`\nBy cursor (keyset), limit=${LIMIT}: first page vs a page at depth ${CURSOR_DEPTH} (ms):`);
  console.log(
    'sortField         order    first p50/p95     depth p50/p95    p50 ratio   SQL execution first / depth',
  );
  for (const [sortField, sortOrder] of SORTS) {
    // With limit 1, page n is the row at offset n: the last row before the cursor's page.
    const at = pageQueries(funnelId, { sortField, sortOrder, limit: 1, page: CURSOR_DEPTH - 1 }, {});
    const [row]: { id: string; sort_value: string | null }[] = await ds.query(at.first.sql, at.first.params);
    const cursor = encodeCursor(
      sortField,
      sortOrder,
      {},
      {
        value: row.sort_value,
        id: row.id,
        page: CURSOR_DEPTH / LIMIT,
      },
    );
    const query = `limit=${LIMIT}&sortField=${sortField}&sortOrder=${sortOrder}`;
    const url = `${baseUrl}/v1/funnels/${funnelId}/contacts?${query}`;
    // Interleaved, so a busy machine slows both alike.
    const [first, deep] = await timeInterleaved([url, `${url}&cursor=${cursor}`], key, 60);
    const firstSql = await executionMs(
      ds,
      pageQueries(funnelId, { sortField, sortOrder, limit: LIMIT, page: 0 }, {}),
    );
    const deepSql = await executionMs(
      ds,
      pageQueries(
        funnelId,
        { sortField, sortOrder, limit: LIMIT, page: 0 },
        {},
        {
          value: row.sort_value,
          id: row.id,
          page: CURSOR_DEPTH / LIMIT,
        },
      ),
    );
    console.log(
      `${sortField.padEnd(17)} ${String(sortOrder).padStart(5)} ${`${first.p50}/${first.p95}`.padStart(16)} ` +
        `${`${deep.p50}/${deep.p95}`.padStart(16)} ${(Number(deep.p50) / Number(first.p50)).toFixed(2).padStart(11)}` +
        `   SQL ${firstSql} / ${deepSql} ms`,
    );
  }
}

/** The page query's execution time as PostgreSQL reports it (warm, best of three). */
async function executionMs(ds: DataSource, queries: ReturnType<typeof pageQueries>): Promise<string> {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const plan: { 'QUERY PLAN': string }[] = await ds.query(
      `EXPLAIN (ANALYZE) ${queries.first.sql}`,
      queries.first.params,
    );
    const line = plan.map((r) => r['QUERY PLAN']).find((l) => l.startsWith('Execution Time'));
    best = Math.min(best, Number(/([\d.]+) ms/.exec(line ?? '')?.[1] ?? NaN));
  }
  return best.toFixed(2);
}

async function timeInterleaved(urls: string[], key: string, runs: number) {
  const times = urls.map(() => [] as number[]);
  for (let i = 0; i < runs + 3; i++) {
    for (const [n, url] of urls.entries()) {
      const started = performance.now();
      const res = await fetch(url, { headers: { 'x-service-api-key': key } });
      const body = (await res.json()) as { data: unknown[] };
      if (res.status !== 200 || body.data.length !== LIMIT)
        throw new Error(`unexpected answer ${res.status}`);
      if (i >= 3) times[n].push(performance.now() - started);
    }
  }
  return times.map((list) => {
    list.sort((a, b) => a - b);
    const pct = (p: number) =>
      list[Math.min(list.length - 1, Math.floor((p / 100) * list.length))].toFixed(1);
    return { p50: pct(50), p95: pct(95) };
  });
}

/** The plan of each filter with a sort order, and of a cursor page deep in the funnel. */
async function explainFilters(ds: DataSource, funnelId: string) {
  const [sample]: { email: string; updated_at: Date }[] = await ds.query(
    `SELECT email, updated_at FROM contacts WHERE funnel_id = $1 AND email IS NOT NULL LIMIT 1`,
    [funnelId],
  );
  const recent = new Date(Date.now() - 3 * 86_400_000);
  const cases: [string, SortField, SortOrder, NormalisedFilters][] = [
    ['email', 'ps_converted_at', -1, { emailLower: sample.email.toUpperCase().toLowerCase() }],
    ['phone', 'ps_converted_at', -1, { phoneDigits: '4915100000003' }],
    ['status (customer, 5%)', 'ps_converted_at', -1, { status: 'customer' }],
    ['status (customer, 5%), by lastName', 'lastName', 1, { status: 'customer' }],
    ['updatedAfter (3 days)', 'updatedAt', 1, { updatedAfter: recent }],
    ['createdAfter (3 days)', 'ps_converted_at', -1, { createdAfter: recent }],
    ['createdAfter (3 days), by email', 'email', 1, { createdAfter: recent }],
  ];
  for (const [label, sortField, sortOrder, filters] of cases) {
    const { first } = pageQueries(funnelId, { sortField, sortOrder, limit: LIMIT, page: 0 }, filters);
    await printPlan(
      ds,
      `filter ${label}, sortField=${sortField} sortOrder=${sortOrder}`,
      first.sql,
      first.params,
    );
  }
  const [row]: { id: string; sort_value: string }[] = await ds.query(
    `SELECT id, converted_at::text AS sort_value FROM contacts WHERE funnel_id = $1
     ORDER BY converted_at DESC NULLS LAST, id DESC LIMIT 1 OFFSET ${CURSOR_DEPTH - 1}`,
    [funnelId],
  );
  const keyset = pageQueries(
    funnelId,
    { sortField: 'ps_converted_at', sortOrder: -1, limit: LIMIT, page: 0 },
    {},
    { value: row.sort_value, id: row.id, page: CURSOR_DEPTH / LIMIT },
  );
  await printPlan(
    ds,
    `cursor at depth ${CURSOR_DEPTH}, default order`,
    keyset.first.sql,
    keyset.first.params,
  );
}

async function printPlan(ds: DataSource, label: string, sql: string, params: unknown[]) {
  const plan: { 'QUERY PLAN': string }[] = await ds.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
  console.log(`\nplan for ${label}:\n  ${sql}`);
  console.log(plan.map((r) => `  ${r['QUERY PLAN']}`).join('\n'));
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
    `\ntotal: kept count ${await time('SELECT sum(contact_count) FROM funnel_contact_counts WHERE funnel_id = $1')} ms, ` +
      `COUNT(*) ${await time('SELECT count(*) FROM contacts WHERE funnel_id = $1')} ms (warm)`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
