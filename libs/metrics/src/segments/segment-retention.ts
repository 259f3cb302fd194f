import type { EntityManager } from 'typeorm';
import { COUNTED_EVENTS } from '../events/event-definitions';
import { millis } from '../sql/epoch';
import { countedEventBetweenSql } from './segment-sql';

/**
 * The earliest instant before `before` (epoch ms) whose raw events the segment folds still need,
 * or null when they need none before it. A minute is folded whole from its raw rows, so dropping
 * raw events the folds have not read yet would lose them from the segment rollups, and a minute
 * folded again after its events were dropped would lose what it held. Needed are the events of a
 * funnel from its `folded_to` on (from its first, before its first fold), and, while a recorded
 * change waits to be folded, the minute it names (any minute, for a session's change).
 */
export async function rawEventsNeededFrom(manager: EntityManager, before: number): Promise<number | null> {
  const [row]: { needed: number | null }[] = await manager.query(
    `SELECT ${millis('least(behind.needed, pending.needed)')} AS needed FROM
       (SELECT min(coalesce(f.folded_to, '-infinity')) AS needed FROM metric_segment_folds f
        WHERE (f.folded_to IS NULL OR f.folded_to < $1)
          AND ${countedEventBetweenSql('f.funnel_id', '$2::text[]', "coalesce(f.folded_to, '-infinity')", '$1')}) AS behind,
       (SELECT min(CASE WHEN c.session_id IS NULL THEN c.minute ELSE '-infinity' END) AS needed
        FROM metric_segment_changes c WHERE c.session_id IS NOT NULL OR c.minute < $1) AS pending`,
    [new Date(before).toISOString(), Object.keys(COUNTED_EVENTS)],
  );
  return row.needed === null ? null : Number(row.needed);
}
