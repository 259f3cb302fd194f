import { Client, escapeLiteral, QueryResult } from 'pg';
import {
  trackedEvent,
  TrackedEvent,
  beginFunnelTransaction,
  emptySession,
  insertEvents,
  lockFunnelAndReadSessions,
  saveMessages,
  segmentChanges,
  Sql,
  StepKeyNumbers,
  stepReaches,
  stepSummaryRowsJson,
  writeBatch,
} from '@app/metrics';
import { startTestApp, TestApp } from './support/app';
import { insertContacts, insertMessage } from './support/contacts';
import { createTenant, TenantFixture } from './support/factories';
import { PlanNode, rowsRead } from './support/plans';

/** A parameter written as a literal (EXECUTE takes no bind parameters), arrays in array syntax. */
function literal(value: unknown): string {
  if (value === null) return 'NULL';
  if (!Array.isArray(value)) return escapeLiteral(String(value));
  const items = value.map((v) => (v === null ? 'NULL' : `"${String(v).replace(/["\\]/g, '\\$&')}"`));
  return escapeLiteral(`{${items.join(',')}}`);
}

// Ingestion runs named prepared statements, and PostgreSQL keeps the generic plan it makes on a
// statement's sixth run. Made while the funnel was new, that plan must still read only the rows
// of the batch once the funnel has tens of thousands of sessions and messages, and before any
// ANALYZE has shown the planner so.
describe('Ingestion statements on a grown funnel', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let client: Client;
  const explained = new Map<string, PlanNode>();
  const sql: Sql = async <R>(name: string, text: string, values: unknown[]) =>
    (await client.query({ name, text, values })).rows as R[];
  // The same statements, first run through their prepared plans under EXPLAIN ANALYZE.
  const explain: Sql = async <R>(name: string, text: string, values: unknown[]) => {
    const args = values.map(literal).join(', ');
    const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${name}(${args})`);
    explained.set(name, (rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan);
    return sql<R>(name, text, values);
  };

  // The batch's writes with only its step summaries and its changes to folded segment rollups:
  // what this suite checks of them. Its step keys are numbered first (kept in memory by a new
  // StepKeyNumbers each time, so the numbering statement runs on every batch).
  const writeChanges = async (run: Sql, events: TrackedEvent[], sessions: string[]) => {
    const marks = await new StepKeyNumbers().marks(run, acme.funnelId, stepReaches(events));
    await writeBatch(run, acme.funnelId, {
      sessions: [],
      questions: [],
      segmentChanges: { ...segmentChanges(events, []), sessions },
      stepSummaries: stepSummaryRowsJson(marks, [], emptySession),
    });
  };

  const inTransaction = async (work: () => Promise<unknown>) => {
    const begun = (await client.query(
      beginFunnelTransaction(acme.funnelId, acme.companyId),
    )) as unknown as QueryResult[];
    expect(begun.at(-1)?.rows).toHaveLength(1);
    await work();
    await client.query('ROLLBACK');
  };

  beforeAll(async () => {
    t = await startTestApp();
    acme = await createTenant(t.app);
    client = new Client({ connectionString: t.databaseUrl });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await t.close();
  });

  it('reads sessions and message states by key, not by scanning the funnel', async () => {
    const [contact] = await insertContacts(t.app, acme, [{ email: 'ada@example.com' }]);
    const message = await insertMessage(t.app, contact, {});
    const batch = (n: number): TrackedEvent[] => [
      trackedEvent('session_start', `s-${n}`, Date.UTC(2026, 2, 1, 10, n), {
        visitorId: `v-${n}`,
        device: 'mobile',
      }),
      trackedEvent('page_view', `s-${n}`, Date.UTC(2026, 2, 1, 10, n, 5), { pageSlug: 'start' }),
      trackedEvent('message_delivered', `s-${n}`, Date.UTC(2026, 2, 1, 10, n, 6), { messageId: message.id }),
    ];
    await client.query(
      `CREATE TABLE IF NOT EXISTS metric_events_p2026_03 PARTITION OF metric_events
       FOR VALUES FROM ('2026-03-01T00:00:00Z') TO ('2026-04-01T00:00:00Z')`,
    );
    // Eight batches on the new funnel: from the sixth on, the statements run their generic plans.
    for (let n = 0; n < 8; n++) {
      await inTransaction(async () => {
        await insertEvents(sql, acme.funnelId, batch(n));
        await lockFunnelAndReadSessions(sql, acme.funnelId, [`s-${n}`]);
        await saveMessages(sql, acme.funnelId, batch(n));
        await writeChanges(sql, batch(n), [`s-${n}`]);
      });
    }
    const plans: { name: string; generic_plans: string }[] = (
      await client.query(`SELECT name, generic_plans FROM pg_prepared_statements WHERE name LIKE 'metrics_%'`)
    ).rows;
    expect(
      plans
        .filter((p) => Number(p.generic_plans) > 0)
        .map((p) => p.name)
        .sort(),
    ).toEqual([
      'metrics_insert_events',
      'metrics_lock_funnel',
      'metrics_number_step_keys',
      'metrics_read_messages',
      'metrics_read_sessions',
      'metrics_save_messages',
      'metrics_write_batch',
    ]);

    // The funnel grows to 20,000 sessions and 20,000 messages.
    await client.query(
      `INSERT INTO metric_sessions (funnel_id, session_id, started_at, visitor_id, device)
       SELECT $1, 'bulk-' || i, timestamptz '2026-03-02' + i * interval '1 second', 'v-' || i, 'desktop'
       FROM generate_series(1, 20000) AS i`,
      [acme.funnelId],
    );
    await client.query(
      `INSERT INTO contact_messages (contact_id, funnel_id, name, type, content, created_at)
       SELECT $1, $2, 'Reminder', 'email', 'Hello', timestamptz '2026-03-02' + i * interval '1 second'
       FROM generate_series(1, 20000) AS i`,
      [contact.id, acme.funnelId],
    );

    await client.query(
      `INSERT INTO metric_session_steps (funnel_id, session_id, started_ms, device, marks)
       SELECT $1, 'bulk-' || i, 8.2e11::bigint + i * 1000, 'desktop', ARRAY[4398046511104 + 8.2e11::bigint + i * 1000]
       FROM generate_series(1, 20000) AS i`,
      [acme.funnelId],
    );
    await client.query(
      `INSERT INTO metric_step_keys (funnel_id, key, id) SELECT $1, 'page:p' || i, i FROM generate_series(1, 2000) AS i`,
      [acme.funnelId],
    );

    // Folded up to a later day: the next batch's minutes and moved sessions are recorded.
    await client.query(
      `INSERT INTO metric_segment_folds (funnel_id, sealed_to, folded_to) VALUES ($1, '2026-04-01', '2026-04-01')`,
      [acme.funnelId],
    );

    const next = [
      ...batch(8),
      trackedEvent('page_view', 'bulk-7', Date.UTC(2026, 2, 3, 9), { pageSlug: 'start' }),
    ];
    await inTransaction(async () => {
      await insertEvents(sql, acme.funnelId, next);
      const sessions = await lockFunnelAndReadSessions(explain, acme.funnelId, ['s-8', 'bulk-7']);
      expect([...sessions.keys()]).toEqual(['bulk-7']);
      await saveMessages(explain, acme.funnelId, next);
      await writeChanges(explain, next, ['s-8', 'bulk-7']);
      const recorded = await client.query(
        // DISTINCT: under EXPLAIN ANALYZE the statement ran twice.
        `SELECT DISTINCT minute, session_id FROM metric_segment_changes WHERE funnel_id = $1 ORDER BY minute, session_id`,
        [acme.funnelId],
      );
      expect(recorded.rows.map((r) => r.session_id ?? +r.minute)).toEqual([
        Date.UTC(2026, 2, 1, 10, 8),
        Date.UTC(2026, 2, 3, 9),
        'bulk-7',
        's-8',
      ]);
    });
    // Each session and message is one probe of its key: the rows read are the batch's own.
    expect(rowsRead(explained.get('metrics_read_sessions') as PlanNode, 'metric_sessions')).toBe(1);
    expect(rowsRead(explained.get('metrics_read_messages') as PlanNode, 'contact_messages')).toBe(1);
    expect(rowsRead(explained.get('metrics_read_messages') as PlanNode, 'metric_messages')).toBe(0);
    // The step keys: the batch's key looked up, the highest key number.
    expect(
      rowsRead(explained.get('metrics_number_step_keys') as PlanNode, 'metric_step_keys'),
    ).toBeLessThanOrEqual(2);
    // The changes: the funnel's watermark (once for the minutes, once for the sessions), and a
    // probe of each moved session's step summary.
    const changes = explained.get('metrics_write_batch') as PlanNode;
    expect(rowsRead(changes, 'metric_segment_folds')).toBe(2);
    expect(rowsRead(changes, 'metric_session_steps')).toBeLessThanOrEqual(2);
  });
});
