import { funnelOwnershipSql } from '@app/workspaces';
import { at } from '../sql/epoch';
import { COUNTED_EVENTS, CountedEventType } from './event-definitions';
import type { TrackedEvent } from './event-types';
import { SESSION_COLUMNS, sessionFromRow, SessionRow } from './session-row';
import type { SessionState } from './session-state';

// A batch is one transaction in two phases. First it stores its events, without any lock: the
// primary key counts each event once, even against a concurrent batch (which waits for the other
// to end). Then it takes the funnel's advisory lock and brings sessions and step summaries in step:
// transactions of one funnel take turns there, so they read and write sessions without row locks
// or ordering concerns, while the next batch's events are already being stored. A batch costs six
// round trips (begin, insert, lock, read, write, commit; two more when it reports messages), each
// a named prepared statement planned once per connection. Events and sessions travel as one JSON
// parameter read with json_to_recordset (their payloads and answers are JSON already), times as
// epoch milliseconds.

/** Runs a named prepared statement in the batch's transaction and returns its rows. */
export type Sql = <T = Record<string, unknown>>(
  name: string,
  text: string,
  values: unknown[],
) => Promise<T[]>;

/**
 * BEGIN and the funnel check (workspaces' funnelOwnershipSql) in one round trip. Its last result
 * has one row when the funnel exists (and belongs to the company, when one is given), none
 * otherwise.
 *
 * Every statement of the transaction finds rows by their key, and only a probe of that key's index
 * keeps a batch's cost independent of the funnel's size. Each lookup is written so that no other
 * index applies, and sequential scans are ruled out for the transaction (SET LOCAL ends with it):
 * a prepared statement keeps the generic plan made on its sixth run, and while a table is small a
 * scan costs less than a probe, so that plan would later scan all of a funnel's sessions.
 */
export function beginFunnelTransaction(funnelId: string, companyId: string | null): string {
  return `BEGIN; SET LOCAL enable_seqscan = off; ${funnelOwnershipSql(funnelId, companyId)}`;
}

/**
 * One event as a json_to_recordset row, members named by their columns; its fields are already
 * JSON (written here rather than by JSON.stringify, which would parse them again). Page views and
 * clicks also carry the columns that edge reads aggregate (COUNTED_EVENTS): key, time on page, button label.
 */
function eventJson(e: TrackedEvent): string {
  const row = `{"occurred_at":${e.occurredAt},"event_id":"${e.eventId}","session_id":${JSON.stringify(e.sessionId)},"type":"${e.type}","payload":${e.fieldsJson}`;
  if (!(e.type in COUNTED_EVENTS)) return `${row}}`;
  const c = COUNTED_EVENTS[e.type as CountedEventType](e.fields);
  const time = c.timeOnPageMs === undefined ? '' : `,"time_on_page_ms":${c.timeOnPageMs}`;
  const label = c.label === undefined ? '' : `,"button_label":${JSON.stringify(c.label)}`;
  return `${row},"key":${JSON.stringify(c.key)}${time}${label}}`;
}

/** insertEvents' statement: $1 the funnel, $2 the events (eventJson), $3 how many. */
export const INSERT_EVENTS_SQL = `WITH inserted AS (
       INSERT INTO metric_events (funnel_id, occurred_at, event_id, session_id, type, payload, key, button_label, time_on_page_ms)
       SELECT $1, ${at('t.occurred_at')}, t.event_id, t.session_id, t.type, t.payload, t.key, t.button_label,
              t.time_on_page_ms
       FROM json_to_recordset($2::json) AS t(occurred_at bigint, event_id uuid, session_id text, type text,
         payload json, key text, button_label text, time_on_page_ms integer)
       ON CONFLICT DO NOTHING
       RETURNING event_id
     ), counted AS (SELECT count(*) <> $3 AS repeats FROM inserted)
     SELECT counted.repeats,
       CASE WHEN counted.repeats THEN (SELECT string_agg(event_id::text, ',') FROM inserted) END AS inserted
     FROM counted`;

/** The funnel's turn: its advisory lock, to the end of the transaction. */
export const LOCK_FUNNEL_SQL = 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))';

/** The stored sessions among $2 of funnel $1, through the primary key, the only index that serves a lookup by id. */
export const READ_SESSIONS_SQL = `SELECT ${SESSION_COLUMNS} FROM metric_sessions WHERE funnel_id = $1 AND session_id = ANY($2::text[])`;

/**
 * Stores the events that are new. Returns their ids, or `all` when none was a repeat of a stored
 * event (the usual case, which saves sending 500 ids back).
 */
export async function insertEvents(
  sql: Sql,
  funnelId: string,
  events: TrackedEvent[],
): Promise<Set<string> | 'all'> {
  // ON CONFLICT checks each event with one probe of the primary key.
  const [row] = await sql<{ repeats: boolean; inserted: string | null }>(
    'metrics_insert_events',
    INSERT_EVENTS_SQL,
    [funnelId, `[${events.map(eventJson).join(',')}]`, events.length],
  );
  return !row.repeats ? 'all' : new Set(row.inserted ? row.inserted.split(',') : []);
}

/**
 * Waits for the funnel's turn (its advisory lock, held to the end of the transaction), then reads
 * the sessions that exist among the given ones: two statements, so the read sees what the
 * previous holder committed.
 */
export async function lockFunnelAndReadSessions(
  sql: Sql,
  funnelId: string,
  sessionIds: string[],
): Promise<Map<string, SessionState>> {
  await sql('metrics_lock_funnel', LOCK_FUNNEL_SQL, [funnelId]);
  if (!sessionIds.length) return new Map();
  const rows = await sql<SessionRow>('metrics_read_sessions', READ_SESSIONS_SQL, [funnelId, sessionIds]);
  return new Map(rows.map((r) => [r.session_id, sessionFromRow(r)]));
}
