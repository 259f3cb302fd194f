/**
 * How each table is placed on a Citus cluster (docs/SCALING.md): distributed by its tenant column,
 * a reference table (small, copied to every node), or left on the coordinator. One entry per table;
 * `test/citus-plan.e2e-spec.ts` reads the catalog and fails on a table missing here or not fitting
 * its entry.
 */
export type Placement =
  { distributed: 'funnel_id' | 'company_id' } | { reference: string } | { coordinator: string };

const byFunnel = { distributed: 'funnel_id' } as const;
const byCompany = { distributed: 'company_id' } as const;

export const CITUS_PLAN: Record<string, Placement> = {
  // Read on every request by id or prefix, whatever the funnel; few rows, rarely written.
  companies: { reference: 'one row per customer; every tenant table refers to it' },
  workspaces: { reference: 'a handful per company; listed per company with their funnels' },
  funnels: { reference: 'the tenant check reads a funnel by id before any of its data; ~10^4 rows' },
  funnel_pages: { reference: 'a few per funnel, read with the funnel' },
  api_keys: { reference: 'looked up by prefix before the company is known' },
  oauth_clients: { reference: 'registered MCP clients, not a tenant’s data' },
  oauth_pending_authorizations: { reference: 'short-lived sign-in state, looked up by state hash' },
  oauth_authorization_codes: { reference: 'short-lived codes, looked up by hash' },
  oauth_pending_consents: { reference: 'short-lived consent state, looked up by hash' },
  oauth_consents: { reference: 'what a person approved for a client, not a tenant’s data' },
  oauth_refresh_tokens: { reference: 'looked up by hash before the company is known' },
  oauth_revoked_access_tokens: { reference: 'checked by hash on every bearer request' },
  collection_salts: { reference: 'one salt a day for visitor ids, read by every funnel’s collection' },
  migrations: { coordinator: "TypeORM's bookkeeping, read only by the migration command" },

  idempotency_keys: byCompany,

  contacts: byFunnel,
  contact_property_definitions: byFunnel,
  contact_property_values: byFunnel,
  contact_property_values_retired: byFunnel,
  contact_unique_values: byFunnel,
  contact_messages: byFunnel,
  contact_field_values: byFunnel,
  erased_contacts: byFunnel,
  erased_contact_messages: byFunnel,
  funnel_contact_counts: byFunnel,
  automations: byFunnel,
  automation_runs: byFunnel,
  webhook_subscriptions: byFunnel,
  metric_events: byFunnel,
  metric_sessions: byFunnel,
  metric_event_rollups: byFunnel,
  metric_session_rollups: byFunnel,
  metric_messages: byFunnel,
  metric_questions: byFunnel,
  metric_session_steps: byFunnel,
  metric_step_keys: byFunnel,
  metric_segment_rollups: byFunnel,
  metric_segment_folds: byFunnel,
  metric_segment_changes: byFunnel,
  metric_dropped_event_months: {
    reference:
      'a row per month whose raw events the retention dropped; read by ingestion and the fold of any funnel',
  },
};

/**
 * What the schema lacks for the plan: none since the CitusDistributionKeys migration. The catalog
 * test fails when a gap appears that is not listed here, and when a listed gap is gone (so the
 * list stays true); a gap that has to stay is listed with why.
 */
export const CITUS_GAPS: string[] = [];
/**
 * Statements that reach a distributed table without naming its distribution column (the first
 * 100 characters, spaces collapsed, and what they miss), as `test/citus-queries.e2e-spec.ts`
 * captures them from the API's traffic. On Citus each would go to every shard. None today; a
 * statement missing here fails the test.
 */
export const CITUS_QUERY_GAPS: string[] = [];

/**
 * The statements of the service that Citus runs on every shard (their first 80 characters, spaces
 * collapsed), as `test/citus-traffic.e2e-spec.ts` reads them from Citus during the API's traffic:
 * the background jobs' discovery across funnels. Every other statement names its funnel (or
 * company) and goes to one shard; a new statement that does not fails that suite.
 */
export const CITUS_EVERY_SHARD: string[] = [
  // The automation worker's due runs (then each funnel's claimed on its shard).
  "SELECT id, funnel_id FROM automation_runs WHERE status IN ('pending', 'running')",
  // The segment folder: funnels new to it, funnels with something to fold.
  'INSERT INTO metric_segment_folds (funnel_id) SELECT f.id FROM funnels f WHERE f.',
  'SELECT f.funnel_id FROM metric_segment_folds f WHERE ($2::uuid IS NULL OR f.funn',
  // The retention: the oldest raw event a fold still needs.
  'SELECT (extract(epoch FROM least(behind.needed, pending.needed)) * 1000)::float8',
  // An SMS gateway's delivery report: it names the message only (then the change goes to one shard).
  'UPDATE contact_messages SET status = $2::varchar, delivered_at = CASE WHEN $2::v',
  "SELECT 1 FROM contact_messages WHERE id = $1 AND type = 'sms'",
  // The typed values' filler: definitions not yet copied, generations to remove.
  'SELECT funnel_id, name FROM contact_property_definitions WHERE NOT values_ready ',
  'SELECT funnel_id, property_name, generation FROM contact_property_values_retired',
];
