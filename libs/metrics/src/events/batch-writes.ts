import type { EventCounts, RollupRow, SessionCounts } from '../rollups/rollup-deltas';
import { sessionRollupRowsJson, sessionRollupUpsertSql } from '../rollups/session-rollup-rows';
import { at } from '../sql/epoch';
import type { Sql } from './event-store';
import type { AnswerFields, TrackedEvent } from './event-types';
import { sessionRowsJson, sessionUpsertSql } from './session-row';
import type { SessionState } from './session-state';

export interface BatchWrites {
  sessions: SessionState[];
  eventRollups: RollupRow<EventCounts>[];
  sessionRollups: RollupRow<SessionCounts>[];
  questions: QuestionTitle[];
}

const LABEL_IS_NEWER = `EXCLUDED.label_at IS NOT NULL AND (r.label_at IS NULL OR EXCLUDED.label_at > r.label_at
  OR (EXCLUDED.label_at = r.label_at AND EXCLUDED.label COLLATE "C" > r.label COLLATE "C"))`;

/**
 * Saves the changed sessions and adds the rollup increments and question titles, in one statement.
 * Each list travels as one JSON parameter whose members are named by the columns they fill.
 */
export async function writeBatch(sql: Sql, funnelId: string, w: BatchWrites): Promise<void> {
  await sql(
    'metrics_write_batch',
    `WITH sessions AS (
       ${sessionUpsertSql('$1', '$2::json')}
     ), event_rollups AS (
       INSERT INTO metric_event_rollups AS r (funnel_id, dimension, grain, bucket, key, events, timed, total_ms,
                                              label, label_at)
       SELECT $1, v.dimension, v.grain, ${at('v.bucket')}, v.key, v.events, v.timed, v.total_ms, v.label,
              ${at('v.label_at')}
       FROM json_to_recordset($3::json) AS v(dimension text, grain int, bucket bigint, key text, events int,
         timed int, total_ms bigint, label text, label_at bigint)
       ON CONFLICT (funnel_id, dimension, grain, bucket, key) DO UPDATE SET
         events = r.events + EXCLUDED.events,
         timed = r.timed + EXCLUDED.timed,
         total_ms = r.total_ms + EXCLUDED.total_ms,
         label = CASE WHEN ${LABEL_IS_NEWER} THEN EXCLUDED.label ELSE r.label END,
         label_at = CASE WHEN ${LABEL_IS_NEWER} THEN EXCLUDED.label_at ELSE r.label_at END
     ), session_rollups AS (
       ${sessionRollupUpsertSql('$1', '$4::json')}
     )
     INSERT INTO metric_questions AS q (funnel_id, question_id, title, title_at)
     SELECT $1, v.id, v.title, ${at('v.at')} FROM json_to_recordset($5::json) AS v(id text, title text, at bigint)
     ON CONFLICT (funnel_id, question_id) DO UPDATE SET
       title = CASE WHEN EXCLUDED.title_at > q.title_at THEN EXCLUDED.title ELSE q.title END,
       title_at = GREATEST(q.title_at, EXCLUDED.title_at)`,
    [
      funnelId,
      sessionRowsJson(w.sessions),
      JSON.stringify(
        w.eventRollups.map(({ dimension, grain, bucket, key, counts: c }) => ({
          dimension,
          grain,
          bucket,
          key,
          events: c.events,
          timed: c.timed,
          total_ms: c.totalMs,
          label: c.label,
          label_at: c.labelAt,
        })),
      ),
      sessionRollupRowsJson(w.sessionRollups),
      JSON.stringify(w.questions),
    ],
  );
}

export interface QuestionTitle {
  id: string;
  title: string;
  /** When the title was seen, epoch ms: the latest wins. */
  at: number;
}

/** Each question's latest title among the events (insights show it; a question never answered is unknown). */
export function latestQuestionTitles(events: TrackedEvent[]): QuestionTitle[] {
  const latest = new Map<string, QuestionTitle>();
  for (const e of events) {
    if (e.type !== 'answer') continue;
    const f = e.fields as AnswerFields;
    const current = latest.get(f.questionId);
    if (
      !current ||
      e.occurredAt > current.at ||
      (e.occurredAt === current.at && f.questionTitle > current.title)
    ) {
      latest.set(f.questionId, { id: f.questionId, title: f.questionTitle, at: e.occurredAt });
    }
  }
  return [...latest.values()];
}
