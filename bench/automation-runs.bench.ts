/**
 * `node -r @swc-node/register bench/automation-runs.bench.ts [history] [due]`
 *
 * The outbox under a long history: `history` finished runs (default 500 000) and `due` pending ones
 * (default 20 000) in a throwaway PostgreSQL. Shows the claim query's plan (it must use the partial
 * index idx_automation_runs_due, not scan the history) and the delivery throughput of 1, 2 and 4
 * workers claiming with SKIP LOCKED against a no-op delivery.
 */
import { DataSource } from 'typeorm';
import { AutomationRunQueue } from '@app/automations';
import { dataSourceOptions, runMigrations, startThrowawayPostgres } from '@app/core';
import { databaseSchema } from '../db/schema';

const HISTORY = Number(process.argv[2] ?? 500_000);
const DUE = Number(process.argv[3] ?? 20_000);

async function main(): Promise<void> {
  const pg = await startThrowawayPostgres();
  try {
    await runMigrations(pg.url, databaseSchema);
    const ds = await new DataSource({
      ...dataSourceOptions(pg.url, databaseSchema),
      extra: { max: 12 },
    }).initialize();
    try {
      await seed(ds);
      await ds.query('ANALYZE automation_runs');
      const plan: { 'QUERY PLAN': string }[] = await ds.query(
        `EXPLAIN ANALYZE SELECT id FROM automation_runs
         WHERE status IN ('pending', 'running') AND next_attempt_at <= now()
         ORDER BY next_attempt_at LIMIT 10 FOR UPDATE SKIP LOCKED`,
      );
      console.log(`claim plan with ${HISTORY} finished and ${DUE} due runs:`);
      console.log(plan.map((row) => `  ${row['QUERY PLAN']}`).join('\n'));

      for (const workers of [1, 2, 4]) {
        // The due set (told apart from the history by its event) becomes due again for each round.
        await ds.query(`UPDATE automation_runs SET status = 'pending', attempts = 0, locked_by = NULL,
          next_attempt_at = now() - interval '1 second', completed_at = NULL WHERE event = 'contact.field_changed'`);
        await ds.query('VACUUM ANALYZE automation_runs');
        const started = Date.now();
        const delivered = await Promise.all(
          Array.from({ length: workers }, (_, i) => drain(new AutomationRunQueue(ds), `bench-${i}`)),
        );
        const total = delivered.reduce((a, b) => a + b, 0);
        const seconds = (Date.now() - started) / 1000;
        console.log(
          `${workers} worker(s): ${total} runs claimed and completed in ${seconds.toFixed(2)} s = ${Math.round(total / seconds)} runs/s`,
        );
      }
    } finally {
      await ds.destroy();
    }
  } finally {
    await pg.destroy();
  }
}

/** Claims batches of 10 and marks them succeeded until nothing is due; returns how many it handled. */
async function drain(queue: AutomationRunQueue, workerId: string): Promise<number> {
  let handled = 0;
  for (;;) {
    const runs = await queue.claim(workerId, 10, 60_000);
    if (!runs.length) return handled;
    const results = await Promise.all(runs.map((run) => queue.succeed(run)));
    if (results.some((ok) => !ok)) throw new Error('a claimed run was completed by someone else');
    handled += runs.length;
  }
}

async function seed(ds: DataSource): Promise<void> {
  const [{ id: companyId }] = await ds.query(
    `INSERT INTO companies (name, subscription_id) VALUES ('Bench', 'sub') RETURNING id`,
  );
  const [{ id: workspaceId }] = await ds.query(
    `INSERT INTO workspaces (company_id, name) VALUES ($1, 'W') RETURNING id`,
    [companyId],
  );
  const [{ id: funnelId }] = await ds.query(
    `INSERT INTO funnels (workspace_id, company_id, name) VALUES ($1, $2, 'F') RETURNING id`,
    [workspaceId, companyId],
  );
  const [{ id: contactId }] = await ds.query(
    `INSERT INTO contacts (funnel_id, company_id, status, email) VALUES ($1, $2, 'lead', 'bench@example.com') RETURNING id`,
    [funnelId, companyId],
  );
  const [{ id: automationId }] = await ds.query(
    `INSERT INTO automations (id, funnel_id, company_id, name, trigger, action, webhook_url)
     VALUES (gen_random_uuid(), $1, $2, 'bench', 'contact.created', 'webhook', 'http://127.0.0.1:9/') RETURNING id`,
    [funnelId, companyId],
  );
  const payload = JSON.stringify({
    event: 'contact.created',
    funnelId,
    contact: { id: contactId },
    change: null,
    occurredAt: new Date(),
  });
  await ds.query(
    `INSERT INTO automation_runs (automation_id, funnel_id, contact_id, event, payload, status, attempts, completed_at, created_at, next_attempt_at)
     SELECT $1, $2, $3, 'contact.created', $4::jsonb, 'succeeded', 1, now() - g * interval '1 second', now() - g * interval '1 second', now() - g * interval '1 second'
     FROM generate_series(1, $5) AS g`,
    [automationId, funnelId, contactId, payload, HISTORY],
  );
  await ds.query(
    `INSERT INTO automation_runs (automation_id, funnel_id, contact_id, event, payload)
     SELECT $1, $2, $3, 'contact.field_changed', $4::jsonb FROM generate_series(1, $5)`,
    [automationId, funnelId, contactId, payload, DUE],
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
