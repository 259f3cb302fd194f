import { COUNTED_EVENTS } from '../events/event-definitions';
import type { TrackedEvent } from '../events/event-types';
import { FILTER_NAMES } from '../events/session-definitions';
import type { SessionState } from '../events/session-state';
import { at } from '../sql/epoch';
import { bucketStart } from '../time/buckets';

/** What a batch changed of the segment rollups' sources: minutes (epoch ms) and sessions. */
export interface SegmentChanges {
  /** Minutes whose page views or clicks, or whose started sessions, changed. */
  minutes: number[];
  /** Sessions whose segment changed: every minute of their events counts elsewhere now. */
  sessions: string[];
}

/** A filter attribute of the segment a session's events count under: unset until it has started. */
const segmentValue = (state: SessionState, name: (typeof FILTER_NAMES)[number]) =>
  state.startedAt === null ? null : state[name];

/**
 * Whether two states of a session count under the same segment: equal segmentValues, which is
 * equal segmentKeys (the key is injective) without building them.
 */
const sameSegment = (a: SessionState, b: SessionState) =>
  FILTER_NAMES.every((name) => segmentValue(a, name) === segmentValue(b, name));

/**
 * The changes of a batch that may touch folded segment rollups: the minutes of its new events
 * counted at their own time, the start minutes (before and after) of the sessions it changed, and
 * the sessions whose segment it changed. Ingestion records only those at or before the funnel's
 * sealed watermark (segmentChangesSql), so traffic arriving on time records nothing.
 */
export function segmentChanges(
  fresh: TrackedEvent[],
  changes: { before: SessionState; after: SessionState }[],
): SegmentChanges {
  const minutes = new Set<number>();
  for (const e of fresh) if (e.type in COUNTED_EVENTS) minutes.add(bucketStart(e.occurredAt, 60));
  const sessions: string[] = [];
  for (const { before, after } of changes) {
    if (before.startedAt !== null) minutes.add(bucketStart(before.startedAt, 60));
    if (after.startedAt !== null) minutes.add(bucketStart(after.startedAt, 60));
    if (!sameSegment(before, after)) sessions.push(after.sessionId);
  }
  return { minutes: [...minutes], sessions };
}

/**
 * Two data-modifying CTE bodies for the batch's statement: they record the changes (`minutes`, a
 * bigint[] of epoch ms, and `sessions`, a text[]) that fall at or before the funnel's sealed
 * watermark. They run in the funnel's turn, after the folder's seal committed or before the seal
 * can (the seal waits for the turn), so a change is either recorded or lies past the watermark. A
 * session counts only when it has stored step marks (events before this batch): one key probe
 * each, and only for sessions whose segment changed, found by `= ANY` of the batch's (a semi-join's
 * generic plan would read every summary of the funnel). Two inserts rather than one over a UNION:
 * Citus cannot push a UNION with a table function down to the funnel's shard.
 */
export const segmentChangesSql = (funnel: string, minutes: string, sessions: string) => ({
  minutes: `INSERT INTO metric_segment_changes (funnel_id, minute)
   SELECT ${funnel}, ${at('m')}
   FROM metric_segment_folds f CROSS JOIN unnest(${minutes}) AS m
   WHERE f.funnel_id = ${funnel} AND f.sealed_to IS NOT NULL AND ${at('m')} < f.sealed_to`,
  sessions: `INSERT INTO metric_segment_changes (funnel_id, session_id)
   SELECT ${funnel}, st.session_id
   FROM metric_segment_folds f JOIN metric_session_steps st ON st.funnel_id = f.funnel_id
   WHERE f.funnel_id = ${funnel} AND f.sealed_to IS NOT NULL
     AND st.funnel_id = ${funnel} AND st.session_id = ANY(${sessions})`,
});
