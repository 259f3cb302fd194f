import { at, millis } from '../sql/epoch';
import { START_ATTRIBUTE_NAMES, START_ATTRIBUTES } from './session-definitions';
import { emptySession, SessionState } from './session-state';

/**
 * A session's members and their metric_sessions columns (after the key, session_id). Times travel
 * as epoch milliseconds. The start attributes come from their declaration, so reading, writing
 * and the edge reads of a session follow one list.
 */
const SESSION_FIELDS: { field: keyof SessionState; column: string; type: string; time?: true }[] = [
  { field: 'startedAt', column: 'started_at', type: 'bigint', time: true },
  { field: 'startEventId', column: 'start_event_id', type: 'uuid' },
  ...START_ATTRIBUTE_NAMES.map((name) => ({
    field: name,
    column: START_ATTRIBUTES[name].column,
    type: 'text',
  })),
  { field: 'pages', column: 'pages', type: 'text[]' },
  { field: 'convertedAt', column: 'converted_at', type: 'bigint', time: true },
  { field: 'completedAt', column: 'completed_at', type: 'bigint', time: true },
  { field: 'answers', column: 'answers', type: 'jsonb' },
];

/** A metric_sessions row as SESSION_COLUMNS selects it. */
export type SessionRow = { session_id: string } & Record<string, unknown>;

/** A session's columns, times as epoch milliseconds. */
export const SESSION_COLUMNS = [
  'session_id',
  ...SESSION_FIELDS.map((f) => (f.time ? `${millis(f.column)} AS ${f.column}` : f.column)),
].join(', ');

export function sessionFromRow(r: SessionRow): SessionState {
  const state = emptySession(r.session_id) as unknown as Record<string, unknown>;
  for (const f of SESSION_FIELDS) state[f.field] = r[f.column];
  return state as unknown as SessionState;
}

/** The sessions as the JSON rows SESSION_UPSERT reads: members named by their columns. */
export function sessionRowsJson(sessions: SessionState[]): string {
  return JSON.stringify(
    sessions.map((s) => {
      const row: Record<string, unknown> = { session_id: s.sessionId };
      for (const f of SESSION_FIELDS) row[f.column] = s[f.field];
      return row;
    }),
  );
}

/** Inserts or replaces the sessions of a JSON parameter (sessionRowsJson) of the funnel. */
export function sessionUpsertSql(funnel: string, rows: string): string {
  const columns = SESSION_FIELDS.map((f) => f.column);
  return `INSERT INTO metric_sessions AS s (funnel_id, session_id, ${columns.join(', ')})
    SELECT ${funnel}, v.session_id, ${SESSION_FIELDS.map((f) => (f.time ? at(`v.${f.column}`) : `v.${f.column}`)).join(', ')}
    FROM json_to_recordset(${rows}) AS v(session_id text, ${SESSION_FIELDS.map((f) => `${f.column} ${f.type}`).join(', ')})
    ON CONFLICT (funnel_id, session_id) DO UPDATE SET
      ${columns.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`;
}
