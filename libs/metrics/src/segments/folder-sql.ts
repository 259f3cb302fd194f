import { LOCK_FUNNEL_SQL } from '../events/event-store';
import { millis } from '../sql/epoch';
import { countedEventBetweenSql } from './segment-sql';
import { staleMinutesSql } from './segment-state';

// The statements of SegmentFolder's scheduling and seal/fold protocol (what a chunk computes and
// writes is segment-refold.ts).

/** Funnels one statement chooses; a round goes through all of them, each once. */
export const CANDIDATES = 50;

/** The last change recorded for funnel `funnel` (0 when none), as text. */
const lastSeqSql = (funnel: string) =>
  `(SELECT coalesce(max(c.seq), 0) FROM metric_segment_changes c WHERE c.funnel_id = ${funnel})::text`;

/** The fold's statements, named (their parameters as the methods below bind them). */
export const FOLDER_SQL = {
  /** A watermark row for every funnel without one. */
  // Not a correlated subquery: Citus refuses one over the funnels' reference table.
  register: `INSERT INTO metric_segment_folds (funnel_id) SELECT f.id FROM funnels f
       WHERE f.id NOT IN (SELECT s.funnel_id FROM metric_segment_folds s)
       ON CONFLICT DO NOTHING`,
  /** See SegmentFolder.due. */
  due: `SELECT f.funnel_id FROM metric_segment_folds f
       WHERE ($2::uuid IS NULL OR f.funnel_id > $2::uuid)
         AND (f.sealed_to IS NULL OR f.folded_to IS NULL OR f.folded_to < f.sealed_to OR f.sealed_to < $3
           OR EXISTS (SELECT 1 FROM metric_segment_changes c WHERE c.funnel_id = f.funnel_id)
           OR f.sealed_to < $1 AND (
             EXISTS (SELECT 1 FROM metric_sessions s
                     WHERE s.funnel_id = f.funnel_id AND s.started_at >= f.sealed_to AND s.started_at < $1)
             OR ${countedEventBetweenSql('f.funnel_id', '$4::text[]', 'f.sealed_to', '$1')}))
       ORDER BY f.funnel_id LIMIT ${CANDIDATES}`,
  /** The funnel's ingestion turn (as a batch takes it). */
  turn: LOCK_FUNNEL_SQL,
  seal: `WITH sealed AS (UPDATE metric_segment_folds SET sealed_to = $2, folded_to = $3 WHERE funnel_id = $1)
         SELECT ${lastSeqSql('$1')} AS last_seq`,
  claim: `SELECT ${millis('sealed_to')} AS sealed_to, ${millis('folded_to')} AS folded_to,
              ${lastSeqSql('$1')} AS last_seq
       FROM metric_segment_folds WHERE funnel_id = $1 FOR UPDATE SKIP LOCKED`,
  firstMinute: `SELECT ${millis('least(s.first, e.first)')} AS first FROM
         (SELECT min(started_at) AS first FROM metric_sessions
          WHERE funnel_id = $1 AND started_at IS NOT NULL AND ($3::timestamptz IS NULL OR started_at >= $3)) AS s,
         (SELECT min(t.first) AS first FROM unnest($2::text[]) AS ty(type) CROSS JOIN LATERAL (
            SELECT min(occurred_at) AS first FROM metric_events
            WHERE funnel_id = $1 AND type = ty.type AND ($3::timestamptz IS NULL OR occurred_at >= $3)) AS t) AS e`,
  /** The start of funnel $1's session after the first $4 started at or after $2 and before $3, by the start index. */
  sessionPastBound: `SELECT ${millis('s.started_at')} AS at FROM metric_sessions s
       WHERE s.funnel_id = $1 AND s.started_at >= $2 AND s.started_at < $3
       ORDER BY s.started_at OFFSET $4 LIMIT 1`,
  changes: `WITH c AS (
           SELECT seq, minute, session_id FROM metric_segment_changes
           WHERE funnel_id = $1 AND seq <= $3::bigint ORDER BY seq LIMIT $2
         )
         SELECT c.seq, x.minute FROM c LEFT JOIN LATERAL (${staleMinutesSql('$1', 'c')}) AS x ON true`,
  advance: `WITH folded AS (DELETE FROM metric_segment_changes WHERE funnel_id = $1 AND seq = ANY($3::bigint[]))
         UPDATE metric_segment_folds SET folded_to = $2 WHERE funnel_id = $1`,
} as const;
