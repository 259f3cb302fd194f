import { COUNTED_EVENTS } from '../events/event-definitions';
import type { Sql } from '../events/event-store';
import type { AnswerFields, TrackedEvent } from '../events/event-types';
import { START_ATTRIBUTE_NAMES, START_ATTRIBUTES } from '../events/session-definitions';
import type { SessionState } from '../events/session-state';
import { STEP_KINDS, StepKind } from './funnel-steps';

// A session's step summary (metric_session_steps) holds every time it reached a step key as one
// sorted bigint array of marks: the key's id (metric_step_keys, per funnel) × 2^42 plus the
// milliseconds since 2000-01-01 UTC. "The first time key k was reached at or after t" is then one
// binary search of that array (width_bucket), so a step funnel walks each session's steps with a
// few integer operations, without reading its events. 2^42 ms after 2000 is the year 2139; key
// ids up to 2^21 fit (ample for a funnel's pages, buttons and questions): a funnel's keys beyond
// that many are numbered but get no marks, rather than overflowing.

/** Events are refused before this (EVENT_LIMITS.earliest): marks are never negative. */
export const MARK_EPOCH_MS = Date.UTC(2000, 0, 1);
export const MARK_KEY_FACTOR = 2n ** 42n;
/** The SQL literal of MARK_KEY_FACTOR. */
export const MARK_KEY_SQL = MARK_KEY_FACTOR.toString();
export const MAX_MARK_KEY_ID = 2 ** 21 - 1;

const KIND_OF_TYPE = new Map<string, StepKind>(
  (Object.entries(STEP_KINDS) as [StepKind, (typeof STEP_KINDS)[StepKind]][]).map(([kind, d]) => [
    d.type,
    kind,
  ]),
);

/** The step key an event reaches (`page:welcome`, `click:buy`, `answer:question_1`, `conversion`), as a step names it. */
export function stepKeyOf(e: TrackedEvent): string | null {
  const kind = KIND_OF_TYPE.get(e.type);
  if (!kind) return null;
  const declared = STEP_KINDS[kind];
  if (!('match' in declared)) return kind;
  const arg =
    declared.match === 'key'
      ? COUNTED_EVENTS[declared.type](e.fields).key
      : (e.fields as AnswerFields).questionId;
  return `${kind}:${arg}`;
}

/** The start attributes a step funnel filters on, copied into the summary. */
export const FILTER_COLUMNS = START_ATTRIBUTE_NAMES.filter(
  (name) => 'filter' in START_ATTRIBUTES[name] && START_ATTRIBUTES[name].filter,
).map((name) => START_ATTRIBUTES[name].column);

/**
 * Brings the step summaries of a batch's sessions in step, in the funnel's turn after its sessions
 * were written: numbers the step keys not seen before, merges the new marks into each session's,
 * and copies the start and filter attributes from metric_sessions for those sessions and for the
 * ones whose start changed. One statement; sessions and keys are found by `= ANY` of the
 * batch's, one index probe each whatever the generic plan of the prepared statement.
 */
export async function writeStepMarks(
  sql: Sql,
  funnelId: string,
  fresh: TrackedEvent[],
  changed: { before: SessionState; after: SessionState }[],
): Promise<void> {
  const marks: string[] = [];
  for (const e of fresh) {
    const key = stepKeyOf(e);
    if (key !== null)
      marks.push(
        `{"s":${JSON.stringify(e.sessionId)},"k":${JSON.stringify(key)},"t":${e.occurredAt - MARK_EPOCH_MS}}`,
      );
  }
  const restarted = changed
    .filter((c) => c.before.startedAt !== c.after.startedAt || c.before.startEventId !== c.after.startEventId)
    .map((c) => c.after.sessionId);
  if (!marks.length && !restarted.length) return;
  await sql(
    'metrics_write_step_marks',
    `WITH raw AS (
       SELECT r.s, r.k, r.t FROM json_to_recordset($2::json) AS r(s text, k text, t bigint)
     ), named AS (
       SELECT n.key, n.id FROM metric_step_keys n
       WHERE n.funnel_id = $1 AND n.key = ANY(ARRAY(SELECT DISTINCT r.k FROM raw r))
     ), keys AS (
       SELECT u.k, n.id FROM (SELECT DISTINCT r.k FROM raw r) AS u LEFT JOIN named n ON n.key = u.k
     ), added AS (
       INSERT INTO metric_step_keys (funnel_id, key, id)
       SELECT $1, k.k,
              coalesce((SELECT x.id FROM metric_step_keys x WHERE x.funnel_id = $1 ORDER BY x.id DESC LIMIT 1), 0)
                + row_number() OVER (ORDER BY k.k)
       FROM keys k WHERE k.id IS NULL
       RETURNING key, id
     ), ids AS (
       SELECT k.k AS key, k.id FROM keys k WHERE k.id IS NOT NULL UNION ALL SELECT key, id FROM added
     ), marked AS (
       SELECT r.s, array_agg(DISTINCT i.id * ${MARK_KEY_SQL} + r.t ORDER BY i.id * ${MARK_KEY_SQL} + r.t) AS marks
       FROM raw r JOIN ids i ON i.key = r.k AND i.id <= ${MAX_MARK_KEY_ID}
       GROUP BY r.s
     ), touched AS (
       SELECT coalesce(a.s, b.s) AS s, coalesce(a.marks, '{}') AS marks
       FROM marked a FULL JOIN unnest($3::text[]) AS b(s) ON b.s = a.s
     ), starts AS (
       SELECT m.session_id, (extract(epoch FROM m.started_at) * 1000)::bigint - ${MARK_EPOCH_MS} AS started_ms,
              ${FILTER_COLUMNS.map((c) => `m.${c}`).join(', ')}
       FROM metric_sessions m WHERE m.funnel_id = $1 AND m.session_id = ANY(ARRAY(SELECT t.s FROM touched t))
     )
     INSERT INTO metric_session_steps AS st (funnel_id, session_id, started_ms, ${FILTER_COLUMNS.join(', ')}, marks)
     SELECT $1, t.s, m.started_ms, ${FILTER_COLUMNS.map((c) => `m.${c}`).join(', ')}, t.marks
     FROM touched t LEFT JOIN starts m ON m.session_id = t.s
     ON CONFLICT (funnel_id, session_id) DO UPDATE SET
       started_ms = EXCLUDED.started_ms,
       ${FILTER_COLUMNS.map((c) => `${c} = EXCLUDED.${c}`).join(', ')},
       marks = CASE WHEN cardinality(EXCLUDED.marks) = 0 THEN st.marks
                    ELSE ARRAY(SELECT DISTINCT x FROM unnest(st.marks || EXCLUDED.marks) AS x ORDER BY x) END`,
    [funnelId, `[${marks.join(',')}]`, restarted],
  );
}
