import { Client, Pool } from 'pg';
import { DataSource } from 'typeorm';
import { ReadPool, type SnapshotRows, sqlPool } from '@app/core';
import {
  CHART_SUBTYPES,
  EventsService,
  FILTERED_CHARTS,
  FILTERED_KPIS,
  KPI_SUBTYPES,
  parseEventBatch,
  SegmentFolder,
} from '@app/metrics';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { PlanNode, rowsRead } from './support/plans';
import { randomTraffic } from './support/random-traffic';

// Reads take raw rows for what the fold has not folded: all of a funnel's window before its first
// fold, filtered and broken-down ones joining raw events to their sessions. They are planned on the tables'
// statistics, and a funnel whose traffic came after the last ANALYZE is estimated there at a
// single session: planned with the sessions outside, the funnel's page views were scanned again
// for every matching session (seconds, then the statement timeout). Each event must find its
// session by a probe of its key, whatever the statistics say.
jest.setTimeout(300_000);

/** The text and values of a statement as node-postgres receives it. */
function statementOf(args: unknown[]): { text: string; values: unknown[] } | undefined {
  const [first, second] = args;
  if (typeof first === 'string') return { text: first, values: Array.isArray(second) ? second : [] };
  if (first && typeof first === 'object' && typeof (first as { text?: unknown }).text === 'string') {
    const config = first as { text: string; values?: unknown[] };
    return { text: config.text, values: config.values ?? (Array.isArray(second) ? second : []) };
  }
  return undefined;
}

/** Rows a plan read from the monthly partitions of metric_events. */
const eventRowsRead = (node: PlanNode): number =>
  (node['Relation Name']?.startsWith('metric_events_p')
    ? rowsRead({ ...node, Plans: [] }, node['Relation Name'])
    : 0) + (node.Plans ?? []).reduce((sum, child) => sum + eventRowsRead(child), 0);

describe('Reads on a funnel newer than the statistics, before its first fold', () => {
  let t: TestApp;
  let client: Client;
  let newer: TenantFixture;
  const statements: { text: string; values: unknown[] }[] = [];

  // Random traffic, moved `days` later.
  const record = async (funnelId: string, seed: number, days: number) => {
    const events = randomTraffic(seed, 600).map((e) => ({
      ...e,
      occurredAt: new Date(Date.parse(e.occurredAt as string) + days * 86_400_000).toISOString(),
    }));
    for (let i = 0; i < events.length; i += 500)
      await t.app.get(EventsService).record(funnelId, parseEventBatch({ events: events.slice(i, i + 500) }));
  };

  beforeAll(async () => {
    t = await startTestApp({ SEGMENT_FOLD_POLL_MS: '3600000', RATE_LIMIT_PER_MINUTE: '100000' });
    await t.app.get(SegmentFolder).stop();
    client = new Client({ connectionString: t.databaseUrl });
    await client.connect();
    const older = await createTenant(t.app);
    newer = await createTenant(t.app);
    await record(older.funnelId, 1, 0);
    await client.query('ANALYZE metric_sessions, metric_events');
    // A month later: its events in a partition the statistics have not seen yet either.
    await record(newer.funnelId, 2, 31);
  });
  afterAll(async () => {
    await client?.end();
    await t?.close();
  });

  /** Each chart and KPI of the lists over one day of the newer funnel, once per query (charts without a breakdown). */
  const paths = (queries: string[], charts: readonly string[], kpis: readonly string[]) => {
    const base = `/v1/funnels/${newer.funnelId}/metrics`;
    const window = 'from=2026-06-10&to=2026-06-10';
    return queries.flatMap((q) => [
      ...(q.startsWith('breakdown') ? [] : charts.map((c) => `${base}/charts/${c}?${window}&${q}`)),
      ...kpis.map((k) => `${base}/kpis/${k}?${window}&${q}`),
    ]);
  };

  /**
   * Asks the API for each path (all 200) and keeps the statements its reads send, through the
   * service's pool or in a snapshot (a planned read's; no replica here).
   */
  const captured = async (list: string[]) => {
    statements.length = 0;
    const pool = sqlPool(t.app.get(DataSource));
    const query = pool.query;
    pool.query = function (this: Pool, ...args: unknown[]) {
      const statement = statementOf(args);
      if (statement) statements.push(statement);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof pool.query;
    const reads = t.app.get(ReadPool);
    const snapshot = reads.snapshot.bind(reads);
    const inSnapshots = jest.spyOn(reads, 'snapshot').mockImplementation((work) =>
      snapshot((rows) =>
        work(((text: string, values: unknown[] = []) => {
          statements.push({ text, values });
          return rows(text, values);
        }) as SnapshotRows),
      ),
    );
    const api = httpClient(t.baseUrl, newer.key);
    try {
      for (const path of list)
        expect({ path, status: (await api.get(path)).status }).toEqual({ path, status: 200 });
    } finally {
      pool.query = query;
      inSnapshots.mockRestore();
    }
  };

  /** The statements whose plan, run, reads more event or session rows than `limit` allows. */
  const readingMore = async (list: typeof statements, limit: { events: number; sessions: number }) => {
    const over: { statement: string; events: number; sessions: number }[] = [];
    for (const { text, values } of list) {
      const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
      const plan = (rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan;
      const read = { events: eventRowsRead(plan), sessions: rowsRead(plan, 'metric_sessions') };
      if (read.events > limit.events || read.sessions > limit.sessions)
        over.push({ statement: text.replace(/\s+/g, ' ').slice(0, 120), ...read });
    }
    return over;
  };

  it('reads each event once and probes its session by key, in every filtered and broken-down read', async () => {
    const [{ events }] = (
      await client.query(`SELECT count(*)::int AS events FROM metric_events WHERE funnel_id = $1`, [
        newer.funnelId,
      ])
    ).rows;
    const [{ folded }] = (
      await client.query(
        `SELECT count(*)::int AS folded FROM metric_segment_folds WHERE folded_to IS NOT NULL`,
      )
    ).rows;
    expect(folded).toBe(0);

    await captured(paths([`device=mobile`, `breakdown=device`], FILTERED_CHARTS, FILTERED_KPIS));
    const joins = statements.filter(
      (s) =>
        /\bmetric_events\b/.test(s.text) &&
        /\bmetric_sessions\b/.test(s.text) &&
        /^\s*(WITH|SELECT)/i.test(s.text),
    );
    // Activity, time on page, clicks, kpi_average_time_on_page filtered and broken down.
    expect(joins.length).toBeGreaterThanOrEqual(5);
    // Each piece of the window reads its events once (a label probe a few more), and each event
    // probes its session: at most one row. Planned with the sessions inside and found by their
    // filter, every event read the funnel's matching sessions again.
    expect(await readingMore(joins, { events: 3 * events, sessions: 3 * events })).toEqual([]);
  });

  it('reads each event and session at most a few times in every read without a filter', async () => {
    const [{ events, sessions }] = (
      await client.query(
        `SELECT (SELECT count(*)::int FROM metric_events WHERE funnel_id = $1) AS events,
                (SELECT count(*)::int FROM metric_sessions WHERE funnel_id = $1) AS sessions`,
        [newer.funnelId],
      )
    ).rows;
    await captured(paths(['offset=0'], CHART_SUBTYPES, KPI_SUBTYPES));
    const reads = statements.filter(
      (s) => /\bmetric_(events|sessions)\b/.test(s.text) && /^\s*(WITH|SELECT)/i.test(s.text),
    );
    // Sessions, pages, answers, page views, clicks, activity.
    expect(reads.length).toBeGreaterThanOrEqual(5);
    expect(await readingMore(reads, { events: 3 * events, sessions: 3 * sessions })).toEqual([]);
  });
});
