import { at } from '../sql/epoch';
import { SegmentChanges, segmentChangesSql } from '../segments/segment-changes';
import { stepSummaryUpsertSql } from '../steps/step-marks';
import type { Sql } from './event-store';
import type { AnswerFields, TrackedEvent } from './event-types';
import { sessionRowsJson, sessionUpsertSql } from './session-row';
import type { SessionState } from './session-state';

interface BatchWrites {
  sessions: SessionState[];
  questions: QuestionTitle[];
  segmentChanges: SegmentChanges;
  /** The step summaries' changes, as stepSummaryRowsJson gives them (`[]` when none). */
  stepSummaries: string;
}

const SEGMENT_CHANGES = segmentChangesSql('$1', '$4::bigint[]', '$5::text[]');

/** writeBatch's statement, built once. */
export const WRITE_BATCH_SQL = `WITH sessions AS (
     ${sessionUpsertSql('$1', '$2::json')}
   ), segment_minutes AS (
     ${SEGMENT_CHANGES.minutes}
   ), segment_sessions AS (
     ${SEGMENT_CHANGES.sessions}
   ), step_summaries AS (
     ${stepSummaryUpsertSql('$1', '$6::json')}
   )
   INSERT INTO metric_questions AS q (funnel_id, question_id, title, title_at)
   SELECT $1, v.id, v.title, ${at('v.at')} FROM json_to_recordset($3::json) AS v(id text, title text, at bigint)
   ON CONFLICT (funnel_id, question_id) DO UPDATE SET
     title = CASE WHEN EXCLUDED.title_at > q.title_at THEN EXCLUDED.title ELSE q.title END,
     title_at = GREATEST(q.title_at, EXCLUDED.title_at)`;

/**
 * Saves the changed sessions and question titles, merges the step summaries and records the
 * changes to folded segment rollups, in one statement (each part sees the tables as they were
 * before it: the changes find the step summaries stored before the batch). Lists travel as one
 * JSON parameter whose members are named by the columns they fill.
 */
export async function writeBatch(sql: Sql, funnelId: string, w: BatchWrites): Promise<void> {
  await sql('metrics_write_batch', WRITE_BATCH_SQL, [
    funnelId,
    sessionRowsJson(w.sessions),
    JSON.stringify(w.questions),
    w.segmentChanges.minutes,
    w.segmentChanges.sessions,
    w.stepSummaries,
  ]);
}

interface QuestionTitle {
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
