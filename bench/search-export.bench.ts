/**
 * `npm run bench:search -- [contacts]` and `npm run bench:export -- [contacts]` (default 1 000 000)
 *
 * A funnel of `contacts` contacts (plus a neighbour funnel of a tenth of that) loaded by set-based
 * SQL into a throwaway PostgreSQL, the service in this process over real HTTP.
 * - search: p50/p95 of POST …/contacts/search per filter, beside the list's GET with the same
 *   equality filter (the reference), and the plan (EXPLAIN ANALYZE) of each search's page and count;
 *   then `score` and `renewal` defined as number and date through the API (the answer timed, then
 *   the background copy of their values until ready) and their ranges, beside the same page and
 *   count reading the value from every contact (the reference); last, a definition's DELETE.
 * - export: rows/s and RSS growth of GET …/contacts/export as NDJSON, CSV and both gzipped, read to
 *   the end, beside the export's COPY read through the service without HTTP, the NDJSON line as
 *   PostgreSQL wrote it whole before (its bytes compared with the export's) and that line with only
 *   the timestamps and meta left out (each with the CPU per row of PostgreSQL and of this process),
 *   reading the contacts' rows by FETCH alone and walking them through the list by cursor (the
 *   references), with the machine's speed and load average.
 */
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { request } from 'node:http';
import { DataSource } from 'typeorm';
import { ApiKeysService, CompaniesService, PERMISSIONS } from '@app/auth';
import {
  ContactsExportService,
  countMatchingSql,
  pageQueries,
  SearchValueType,
  validateSearch,
  type SearchContactsInput,
} from '@app/contacts';
import { dataSourceOptions, runMigrations, startThrowawayPostgres, validateEnv } from '@app/core';
import { FunnelsService, WorkspacesService } from '@app/workspaces';
import { createApp } from '../apps/api/src/create-app';
import { databaseSchema } from '../db/schema';
import { copyLineBefore } from './export/ndjson-line-before';
import { calibrate, fmt } from './metrics/bench-env';
import { nodeCpuMs, postgresCpuMs, postmasterPid } from './metrics/cpu';

const MODE = process.argv[2] === 'export' ? 'export' : 'search';
const CONTACTS = Number(process.argv[3] ?? 1_000_000);
const BATCH = 100_000;
const RUNS = 30;

type Filter = { field: string; operator: string; value?: unknown };
const one = (filter: Filter): SearchContactsInput => ({ filterGroups: [{ filters: [filter] }] });

async function main(): Promise<void> {
  // The app's ConfigModule reads process.env: no fixed Prometheus port beside other runs.
  process.env.METRICS_PORT = '0';
  const pg = await startThrowawayPostgres();
  try {
    await runMigrations(pg.url, databaseSchema);
    const env = validateEnv({
      NODE_ENV: 'test',
      LOG_LEVEL: 'error',
      RATE_LIMIT_PER_MINUTE: '1000000',
      METRICS_PORT: '0',
      // The default statement timeout (15 s): a definition must answer within it.
    });
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
        let started = performance.now();
        await load(ds, company.id, neighbour.id, Math.floor(CONTACTS / 10));
        await load(ds, company.id, big.id, CONTACTS);
        console.log(
          `loaded ${CONTACTS + Math.floor(CONTACTS / 10)} contacts in ${((performance.now() - started) / 1000).toFixed(1)} s`,
        );
        started = performance.now();
        await ds.query('VACUUM ANALYZE contacts');
        await ds.query('CHECKPOINT');
        console.log(`VACUUM ANALYZE + CHECKPOINT in ${((performance.now() - started) / 1000).toFixed(1)} s`);
        if (MODE === 'search') await benchSearch(ds, baseUrl, key, big.id);
        else
          await benchExport(ds, baseUrl, key, big.id, () =>
            copyAlone(app.get(ContactsExportService), pg.url, company.id, big.id),
          );
        console.log(
          `\nmachine now: PostgreSQL sums 20M integers in ${fmt(await calibrate(pg.url), 0)} ms ` +
            `(about 1500 ms on an idle modern core); load average ${loadavg()
              .map((l) => l.toFixed(2))
              .join(' ')}`,
        );
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

/**
 * Contacts by set-based SQL: every one has properties `plan` (free, pro, team), `score` (a JSON
 * number 0–999) and, one in a thousand, `tier: "gold"`; meta.ps_source and utm_source vary. For
 * the search bench every one also has `renewal`, a date spread over two years.
 */
async function load(ds: DataSource, companyId: string, funnelId: string, count: number): Promise<void> {
  const renewal =
    MODE === 'search'
      ? `|| jsonb_build_object('renewal', to_char(date '2026-01-01' + (i * 31) % 730, 'YYYY-MM-DD'))`
      : '';
  for (let start = 0; start < count; start += BATCH) {
    const size = Math.min(BATCH, count - start);
    await ds.query(
      `INSERT INTO contacts (funnel_id, company_id, status, email, phone, first_name, last_name, city,
                             converted_at, meta, utm_params, properties, created_at, updated_at)
       SELECT $1, $2, CASE WHEN i % 20 = 7 THEN 'customer' ELSE (ARRAY['lead','converted'])[1 + (i % 2)] END,
              CASE WHEN i % 33 = 0 THEN NULL ELSE 'c' || i || '@example.com' END,
              CASE WHEN i % 3 = 0 THEN '+49 151 ' || lpad(i::text, 8, '0') END,
              (ARRAY['Anna','Ben','Clara','David','Emma','Felix','Greta','Jonas','Lea','Mia'])[1 + (i * 7) % 10],
              (ARRAY['Müller','Schmidt','Fischer','Weber','Meyer','Wagner','Becker'])[1 + (i * 13) % 7],
              (ARRAY['Berlin','Hamburg','München','Köln','Leipzig'])[1 + i % 5],
              now() - (i % 365) * interval '1 day',
              jsonb_build_object('ps_source', (ARRAY['funnel','external-api','manual'])[1 + i % 3]),
              jsonb_build_object('utm_source', (ARRAY['google','newsletter','meta','direct'])[1 + i % 4]),
              jsonb_build_object('plan', (ARRAY['free','pro','team'])[1 + i % 3], 'score', (i::bigint * 7919) % 1000)
                || CASE WHEN i % 1000 = 0 THEN '{"tier":"gold"}'::jsonb ELSE '{}'::jsonb END ${renewal},
              now() - (i % 1000) * interval '1 hour', now() - (i % 1000) * interval '1 hour'
       FROM generate_series($3::int, $3::int + $4::int - 1) AS i`,
      [funnelId, companyId, start, size],
    );
  }
}

async function timed(runs: number, work: () => Promise<void>): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < runs + 3; i++) {
    const started = performance.now();
    await work();
    if (i >= 3) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))];
  return { p50: pct(50), p95: pct(95) };
}

async function benchSearch(ds: DataSource, baseUrl: string, key: string, funnelId: string): Promise<void> {
  const headers = { 'x-service-api-key': key, 'content-type': 'application/json' };
  const post = async (body: SearchContactsInput) => {
    const res = await fetch(`${baseUrl}/v1/funnels/${funnelId}/contacts/search`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as { meta: { total: number } };
    if (res.status !== 200) throw new Error(`search answered ${res.status}: ${JSON.stringify(answer)}`);
    return answer.meta.total;
  };
  const cases: [string, SearchContactsInput, string?][] = [
    [
      'email eq (indexed equality)',
      one({ field: 'email', operator: 'eq', value: 'C123457@example.com' }),
      'email=c123457%40example.com',
    ],
    [
      'phone eq (digits index)',
      one({ field: 'phone', operator: 'eq', value: '+49 151 00123456' }),
      'phone=4915100123456',
    ],
    ['email starts_with (prefix index)', one({ field: 'email', operator: 'starts_with', value: 'c12345' })],
    ['properties.tier eq (GIN, 0.1 %)', one({ field: 'properties.tier', operator: 'eq', value: 'gold' })],
    ['properties.tier exists (GIN, 0.1 %)', one({ field: 'properties.tier', operator: 'exists' })],
    [
      'OR of two indexed groups',
      {
        filterGroups: [
          { filters: [{ field: 'email', operator: 'starts_with', value: 'c99999' }] },
          {
            filters: [
              { field: 'properties.tier', operator: 'eq', value: 'gold' },
              { field: 'address.city', operator: 'eq', value: 'Berlin' },
            ],
          },
        ],
      },
    ],
    [
      'createdAt gt (range, last 10 h)',
      one({ field: 'createdAt', operator: 'gt', value: new Date(Date.now() - 10 * 3_600_000).toISOString() }),
    ],
    ['properties.plan eq (GIN, 33 %)', one({ field: 'properties.plan', operator: 'eq', value: 'pro' })],
    ['firstName contains (no index)', one({ field: 'firstName', operator: 'contains', value: 'nn' })],
  ];
  console.log(`\nPOST …/contacts/search, limit 50, ${CONTACTS} contacts, real HTTP, ${RUNS} runs (ms):`);
  console.log(
    'case                                      matches      p50      p95   list GET p50 (reference)',
  );
  for (const [name, body, listQuery] of cases) {
    const total = await post(body);
    const search = await timed(name.includes('no index') || name.includes('33 %') ? 5 : RUNS, async () => {
      await post(body);
    });
    let reference = '';
    if (listQuery) {
      const list = await timed(RUNS, async () => {
        const res = await fetch(`${baseUrl}/v1/funnels/${funnelId}/contacts?${listQuery}`, { headers });
        await res.text();
      });
      reference = list.p50.toFixed(1);
    }
    console.log(
      `${name.padEnd(40)} ${String(total).padStart(9)} ${search.p50.toFixed(1).padStart(8)} ${search.p95.toFixed(1).padStart(8)}   ${reference}`,
    );
  }

  // Typed ranges: `score` defined as a number and `renewal` as a date through the API (timed: the
  // answer, which checks the stored values and commits), then the background copy of their values
  // into contact_property_values (timed until both are ready), a range searched meanwhile.
  const fillStarted = performance.now();
  for (const [name, type] of [
    ['score', 'number'],
    ['renewal', 'date'],
  ]) {
    const started = performance.now();
    const res = await fetch(`${baseUrl}/v1/funnels/${funnelId}/properties`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name, type }),
    });
    if (res.status !== 201) throw new Error(`defining ${name} answered ${res.status}: ${await res.text()}`);
    console.log(
      `\nPOST …/properties ${name} (${type}) over ${CONTACTS} contacts: ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  const during = performance.now();
  const duringTotal = await post(one({ field: 'properties.score', operator: 'gte', value: 990 }));
  console.log(
    `properties.score gte 990 while the copy is filled (over properties): ${duringTotal} matches, ${(performance.now() - during).toFixed(0)} ms`,
  );
  await untilReady(ds, funnelId);
  console.log(
    `both copies filled in the background ${((performance.now() - fillStarted) / 1000).toFixed(1)} s after the first POST (default chunks of 5,000 contacts); load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  // As autovacuum leaves it after a million inserts: visible to index-only scans, with statistics.
  await ds.query('VACUUM ANALYZE contact_property_values');
  const typedCases: [string, SearchContactsInput, string][] = [
    [
      'properties.score gte 990 (number, 1 %)',
      one({ field: 'properties.score', operator: 'gte', value: 990 }),
      `CASE WHEN jsonb_typeof(properties->'score') = 'number' THEN (properties->>'score')::numeric END >= 990`,
    ],
    [
      'properties.renewal gte 2027-12-25 (date, 1 %)',
      one({ field: 'properties.renewal', operator: 'gte', value: '2027-12-25' }),
      `properties->>'renewal' >= '2027-12-25'`,
    ],
  ];
  console.log(
    `\nTyped ranges, limit 50, ${RUNS} runs (ms); reference: the same page + count reading the value from every contact's properties (5 runs):`,
  );
  console.log('case                                            matches      p50      p95   reference p50');
  for (const [name, body, condition] of typedCases) {
    const total = await post(body);
    const search = await timed(RUNS, async () => {
      await post(body);
    });
    const reference = await timed(5, async () => {
      await Promise.all([
        ds.query(
          `SELECT id FROM contacts WHERE funnel_id = $1 AND ${condition} ORDER BY converted_at DESC NULLS LAST, id DESC LIMIT 51`,
          [funnelId],
        ),
        ds.query(`SELECT count(*) FROM contacts WHERE funnel_id = $1 AND ${condition}`, [funnelId]),
      ]);
    });
    console.log(
      `${name.padEnd(46)} ${String(total).padStart(9)} ${search.p50.toFixed(1).padStart(8)} ${search.p95.toFixed(1).padStart(8)}   ${reference.p50.toFixed(1)}`,
    );
  }

  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} after the runs`,
  );
  console.log('\nPlans (EXPLAIN ANALYZE, warm):');
  const typed = new Map<string, SearchValueType>([
    ['score', 'number'],
    ['renewal', 'date'],
  ]);
  const copies = new Map(
    (
      (await ds.query(
        'SELECT name, values_generation AS g FROM contact_property_definitions WHERE funnel_id = $1 AND values_ready',
        [funnelId],
      )) as { name: string; g: string }[]
    ).map((d) => [d.name, d.g]),
  );
  for (const [name, body] of [...cases, ...typedCases]) {
    const query = validateSearch(body, typed, copies);
    const page = pageQueries(funnelId, { ...query, page: 0 }, query.groups).first;
    console.log(`\n-- ${name}: page\n${await plan(ds, page.sql, page.params)}`);
    const count = countMatchingSql(funnelId, query.groups);
    console.log(`-- ${name}: count\n${await plan(ds, count.sql, count.params)}`);
  }
  await writeCost(ds, funnelId);
  await deletion(ds, funnelId, baseUrl, headers);
}

/** Waits until the funnel's definitions have their values copied (and no ended generation is left). */
async function untilReady(ds: DataSource, funnelId: string): Promise<void> {
  for (;;) {
    const [{ pending }]: { pending: number }[] = await ds.query(
      `SELECT (SELECT count(*) FROM contact_property_definitions WHERE funnel_id = $1 AND NOT values_ready)
            + (SELECT count(*) FROM contact_property_values_retired WHERE funnel_id = $1) AS pending`,
      [funnelId],
    );
    if (Number(pending) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** DELETE of a definition with a value on every contact: the answer, then the rows' removal. */
async function deletion(
  ds: DataSource,
  funnelId: string,
  baseUrl: string,
  headers: Record<string, string>,
): Promise<void> {
  const started = performance.now();
  const res = await fetch(`${baseUrl}/v1/funnels/${funnelId}/properties/score`, {
    method: 'DELETE',
    headers,
  });
  if (res.status !== 204) throw new Error(`deleting score answered ${res.status}: ${await res.text()}`);
  const answered = performance.now() - started;
  await untilReady(ds, funnelId);
  console.log(
    `\nDELETE …/properties/score: answered in ${answered.toFixed(0)} ms; its rows removed in the background ${((performance.now() - started) / 1000).toFixed(1)} s after; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

/**
 * What keeping contact_property_values costs a write: 20,000 contacts with a score and a renewal
 * inserted, then their score changed, in the funnel that defines both, beside the same statements
 * in the neighbour funnel, which defines neither (the reference).
 */
async function writeCost(ds: DataSource, funnelId: string): Promise<void> {
  const [neighbour] = (await ds.query(
    'SELECT funnel_id, company_id FROM contacts WHERE funnel_id <> $1 LIMIT 1',
    [funnelId],
  )) as { funnel_id: string; company_id: string }[];
  const [big] = (await ds.query('SELECT company_id FROM contacts WHERE funnel_id = $1 LIMIT 1', [
    funnelId,
  ])) as { company_id: string }[];
  // The reference: the copy as one statement in one transaction, as a definition's request made it
  // before (rolled back, it leaves a million dead rows that would slow the searches above).
  const oneStatement = performance.now();
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction();
    await runner.query(
      `INSERT INTO contact_property_values (funnel_id, property_name, contact_id, generation, number_value)
       SELECT c.funnel_id, 'score', c.id, gen_random_uuid(), contact_property_number('number', c.properties -> 'score')
       FROM contacts c WHERE c.funnel_id = $1 AND contact_property_number('number', c.properties -> 'score') IS NOT NULL
       ON CONFLICT (funnel_id, property_name, contact_id) DO UPDATE SET generation = EXCLUDED.generation,
         number_value = EXCLUDED.number_value`,
      [funnelId],
    );
    await runner.rollbackTransaction();
  } finally {
    await runner.release();
  }
  console.log(
    `\nreference: copying score's values in one statement, one transaction (over the existing copy, rolled back): ${((performance.now() - oneStatement) / 1000).toFixed(1)} s`,
  );
  console.log('\nWrites of 20,000 contacts with score and renewal, one statement each (ms):');
  console.log('funnel                                   insert   update score');
  for (const [name, funnel, company] of [
    ['neighbour, no definitions (reference)', neighbour.funnel_id, neighbour.company_id],
    ['score number + renewal date defined', funnelId, big.company_id],
  ]) {
    let started = performance.now();
    const rows: { id: string }[] = await ds.query(
      `INSERT INTO contacts (funnel_id, company_id, status, email, properties)
       SELECT $1, $2, 'lead', 'write-cost-' || i || '@example.com',
              jsonb_build_object('score', i % 1000, 'renewal', to_char(date '2026-01-01' + i % 730, 'YYYY-MM-DD'))
       FROM generate_series(1, 20000) AS i RETURNING id`,
      [funnel, company],
    );
    const insert = performance.now() - started;
    started = performance.now();
    await ds.query(
      `UPDATE contacts SET properties = properties || jsonb_build_object('score', (properties->>'score')::numeric + 1)
       WHERE funnel_id = $1 AND id = ANY($2::uuid[])`,
      [funnel, rows.map((r) => r.id)],
    );
    const update = performance.now() - started;
    console.log(`${name.padEnd(40)} ${insert.toFixed(0).padStart(6)} ${update.toFixed(0).padStart(14)}`);
  }
}

async function plan(ds: DataSource, sql: string, params: unknown[]): Promise<string> {
  await ds.query(sql, params);
  const rows: { 'QUERY PLAN': string }[] = await ds.query(`EXPLAIN (ANALYZE, COSTS OFF) ${sql}`, params);
  return rows.map((r) => `   ${r['QUERY PLAN']}`).join('\n');
}

/** Reads a GET to the end, counting lines and bytes, sampling RSS; the body is never kept. */
function readExport(url: string, headers: Record<string, string>) {
  return new Promise<{ lines: number; bytes: number; ms: number; rssGrowthMb: number }>((resolve, reject) => {
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const started = performance.now();
    request(url, { headers }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`export answered ${res.statusCode}`));
      let lines = 0;
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
      });
      res.on('end', () => {
        clearInterval(sampler);
        resolve({ lines, bytes, ms: performance.now() - started, rssGrowthMb: (peak - rss0) / 1e6 });
      });
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/**
 * References: the export's COPY read to the end through the service, without HTTP (what PostgreSQL
 * writes and this process passes on or joins into lines, before any client), and the NDJSON line
 * as PostgreSQL wrote it whole before (COPY alone); the two NDJSON outputs' bytes compared.
 */
async function copyAlone(
  exports: ContactsExportService,
  url: string,
  companyId: string,
  funnelId: string,
): Promise<void> {
  // CPU per row of PostgreSQL (the whole server) and of this process, beside the wall clock.
  const postmaster = await postmasterPid(url);
  const measured = async <T extends { rows: number }>(work: () => Promise<T>) => {
    const [pg0, node0] = [postgresCpuMs(postmaster), nodeCpuMs()];
    const result = await work();
    const perRow = (ms: number) => `${((ms * 1000) / result.rows).toFixed(1)} µs`;
    const cpu = `CPU per row: PostgreSQL ${perRow(postgresCpuMs(postmaster) - pg0)}, Node ${perRow(nodeCpuMs() - node0)}`;
    return { ...result, cpu };
  };
  let ndjsonSha256 = '';
  for (const format of ['ndjson', 'csv'] as const) {
    const started = performance.now();
    const r = await measured(async () => {
      const { count, body } = await exports.open(companyId, funnelId, format, {});
      const hash = createHash('sha256');
      let bytes = 0;
      for await (const chunk of body) {
        bytes += (chunk as Buffer).length;
        if (format === 'ndjson') hash.update(chunk as Buffer);
      }
      if (format === 'ndjson') ndjsonSha256 = hash.digest('hex');
      return { rows: count, bytes };
    });
    const s = (performance.now() - started) / 1000;
    console.log(
      `COPY alone, ${format}, no HTTP (reference) ${r.rows} rows, ${(r.bytes / 1e6).toFixed(0)} MB in ${s.toFixed(1)} s: ` +
        `${Math.round(r.rows / s)} rows/s; ${r.cpu}`,
    );
  }
  const before = await measured(() => copyLineBefore(url, funnelId));
  console.log(
    `COPY alone, ndjson line written whole by PostgreSQL as before (reference) ${before.rows} rows, ` +
      `${(before.bytes / 1e6).toFixed(0)} MB in ${before.s.toFixed(1)} s: ${Math.round(before.rows / before.s)} rows/s; ` +
      `${before.cpu}; same bytes as the export: ${before.sha256 === ndjsonSha256 ? 'yes' : 'NO'}`,
  );
  const partial = await measured(() => copyLineBefore(url, funnelId, true));
  console.log(
    `COPY alone, that line with only the timestamps and meta left to Node (reference, not the export's bytes) ` +
      `${partial.rows} rows in ${partial.s.toFixed(1)} s: ${Math.round(partial.rows / partial.s)} rows/s; ${partial.cpu}`,
  );
}

async function benchExport(
  ds: DataSource,
  baseUrl: string,
  key: string,
  funnelId: string,
  references: () => Promise<void>,
): Promise<void> {
  const path = `${baseUrl}/v1/funnels/${funnelId}/contacts/export`;
  console.log(
    `\nGET …/contacts/export, ${CONTACTS} contacts, real HTTP, read to the end (load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}):`,
  );
  console.log('format              rows      MB       s    rows/s   RSS growth MB');
  for (const [name, url, headers] of [
    ['ndjson', `${path}?format=ndjson`, {}],
    ['csv', `${path}?format=csv`, {}],
    ['ndjson, gzip', `${path}?format=ndjson`, { 'accept-encoding': 'gzip' }],
    ['csv, gzip', `${path}?format=csv`, { 'accept-encoding': 'gzip' }],
  ] as const) {
    global.gc?.();
    const r = await readExport(url, { 'x-service-api-key': key, ...headers });
    const rows = name === 'csv' ? r.lines - 1 : name.includes('gzip') ? CONTACTS : r.lines;
    console.log(
      `${name.padEnd(14)} ${String(rows).padStart(9)} ${(r.bytes / 1e6).toFixed(0).padStart(7)} ${(r.ms / 1000).toFixed(1).padStart(7)} ` +
        `${Math.round(rows / (r.ms / 1000))
          .toString()
          .padStart(9)} ${r.rssGrowthMb.toFixed(1).padStart(15)}`,
    );
  }
  await references();
  // Reference: the rows read by FETCH alone (the old export's statement), without presenting or sending.
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    const sqlStarted = performance.now();
    await runner.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const columns = ds
      .getRepository('Contact')
      .metadata.columns.map((c) => `c.${c.databaseName}`)
      .join(', ');
    await runner.query(
      `DECLARE bench_export NO SCROLL CURSOR FOR SELECT ${columns}, coalesce((SELECT json_agg(m.id) FROM contact_messages m
         WHERE m.contact_id = c.id), '[]') AS messages FROM contacts c WHERE funnel_id = $1`,
      [funnelId],
    );
    let fetched = 0;
    for (;;) {
      const rows: unknown[] = await runner.query('FETCH 2000 FROM bench_export');
      if (!rows.length) break;
      fetched += rows.length;
    }
    await runner.query('COMMIT');
    const s = (performance.now() - sqlStarted) / 1000;
    console.log(
      `FETCH alone (reference) ${fetched} rows in ${s.toFixed(1)} s: ${Math.round(fetched / s)} rows/s`,
    );
  } finally {
    await runner.release();
  }
  // Reference: the same contacts walked through the list by cursor, 100 a page, for 20 000 rows.
  const headers = { 'x-service-api-key': key };
  let cursor: string | undefined;
  let rows = 0;
  const started = performance.now();
  while (rows < 20_000) {
    const res = await fetch(
      `${baseUrl}/v1/funnels/${funnelId}/contacts?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      { headers },
    );
    const body = (await res.json()) as { data: unknown[]; meta: { nextCursor?: string } };
    rows += body.data.length;
    cursor = body.meta.nextCursor;
    if (!cursor) break;
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `list by cursor (reference) ${rows} rows in ${seconds.toFixed(1)} s: ${Math.round(rows / seconds)} rows/s`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
