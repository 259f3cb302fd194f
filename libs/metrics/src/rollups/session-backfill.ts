import type { SessionStartFields } from '../events/event-types';
import {
  DECLARED_DIMENSIONS,
  DimensionName,
  START_ATTRIBUTES,
  StartAttribute,
} from '../events/session-definitions';
import { SESSION_COLUMNS, sessionFromRow, SessionRow } from '../events/session-row';
import { emptySession } from '../events/session-state';
import { sessionRollupDeltas } from './rollup-deltas';
import { sessionRollupUpsertSql, sessionRollupValues } from './rollup-rows';

// Backfills for a migration that adds a start attribute or a session dimension. They compute from
// the declarations (session-definitions.ts) and the merge and contributions ingestion uses, so a
// backfill writes what ingestion would have written, however the declaration reads.

/** Runs one statement (a migration's queryRunner.query) and returns its rows. */
export type RunSql = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

type Page = { funnel_id: string; session_id: string } & Record<string, unknown>;

// Sessions are read in keyset order, a page at a time, so a large table is never held at once.
async function eachPage(
  run: RunSql,
  select: (after: string) => string,
  size: number,
  handle: (rows: Page[]) => Promise<void>,
) {
  let last = ['00000000-0000-0000-0000-000000000000', ''];
  for (;;) {
    const rows = (await run(
      `${select('(m.funnel_id, m.session_id) > ($1::uuid, $2::text)')}
      ORDER BY m.funnel_id, m.session_id LIMIT ${Number(size)}`,
      last,
    )) as Page[];
    if (!rows.length) return;
    await handle(rows);
    const end = rows[rows.length - 1];
    last = [end.funnel_id, end.session_id];
  }
}

/**
 * Fills a start attribute's column (added before) of every started session from its earliest
 * session_start, found through the event's primary key.
 */
export async function backfillStartAttribute(
  run: RunSql,
  attribute: StartAttribute,
  size = 5000,
): Promise<void> {
  const { column, of } = START_ATTRIBUTES[attribute];
  await eachPage(
    run,
    (after) => `SELECT m.funnel_id, m.session_id, e.payload FROM metric_sessions m
      JOIN metric_events e ON e.funnel_id = m.funnel_id AND e.type = 'session_start'
        AND e.occurred_at = m.started_at AND e.event_id = m.start_event_id
      WHERE ${after}`,
    size,
    async (rows) => {
      const values = rows.map((r) => ({
        funnel_id: r.funnel_id,
        session_id: r.session_id,
        value: of(r.payload as SessionStartFields),
      }));
      await run(
        `UPDATE metric_sessions s SET ${column} = v.value
         FROM json_to_recordset($1::json) AS v(funnel_id uuid, session_id text, value text)
         WHERE s.funnel_id = v.funnel_id AND s.session_id = v.session_id`,
        [JSON.stringify(values)],
      );
    },
  );
}

/**
 * Adds the rollup rows of the given declared session dimensions (e.g. 'device', 'page:') from the
 * stored sessions, at every grain (a `segment` too: a migration's down writes them for the release
 * before the segment rollups kept its totals). The dimensions' rows must not exist yet.
 */
export async function backfillSessionDimensions(
  run: RunSql,
  dimensions: DimensionName[],
  size = 5000,
): Promise<void> {
  const wanted = new Set<string>(dimensions);
  const declared = DECLARED_DIMENSIONS.filter(([name]) => wanted.has(name));
  await eachPage(
    run,
    // One table: the session's columns need no alias.
    (after) => `SELECT m.funnel_id, ${SESSION_COLUMNS} FROM metric_sessions m
      WHERE m.started_at IS NOT NULL AND ${after}`,
    size,
    async (rows) => {
      const byFunnel = new Map<string, Page[]>();
      for (const r of rows) byFunnel.set(r.funnel_id, [...(byFunnel.get(r.funnel_id) ?? []), r]);
      for (const [funnelId, sessions] of byFunnel) {
        const changes = sessions.map((r) => {
          const after = sessionFromRow(r as SessionRow);
          return { before: emptySession(after.sessionId), after };
        });
        const increments = sessionRollupDeltas(changes, declared);
        if (increments.length)
          await run(sessionRollupUpsertSql('$1::uuid', 2), [funnelId, ...sessionRollupValues(increments)]);
      }
    },
  );
}
