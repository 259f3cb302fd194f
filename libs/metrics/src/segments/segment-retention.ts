import type { EntityManager } from 'typeorm';
import { COUNTED_EVENTS } from '../events/event-definitions';
import { monthPartition } from '../events/event-partitions';
import { iso, millis } from '../sql/epoch';
import type { Range } from '../time/time-cover';
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
    [iso(before), Object.keys(COUNTED_EVENTS)],
  );
  return row.needed === null ? null : Number(row.needed);
}

/**
 * The parts of `ranges` in months whose raw events are gone: recorded as dropped by the retention
 * (metric_dropped_event_months, whatever this process's EVENT_RETENTION_MONTHS), or without a
 * partition (no raw event to count). The fold keeps the stored event counts of those parts instead
 * of computing them from raw rows.
 */
export async function droppedParts(manager: EntityManager, ranges: Range[]): Promise<Range[]> {
  const months = new Map<string, { start: string; parts: Range[] }>();
  for (const r of ranges) {
    for (let from = r.from; from < r.to;) {
      const month = monthPartition(from);
      const to = Math.min(r.to, Date.parse(month.to));
      const entry = months.get(month.name) ?? { start: month.from, parts: [] };
      entry.parts.push({ from, to });
      months.set(month.name, entry);
      from = to;
    }
  }
  if (!months.size) return [];
  const gone: { name: string }[] = await manager.query(
    `SELECT p.name FROM unnest($1::text[], $2::timestamptz[]) AS p(name, month)
     LEFT JOIN metric_dropped_event_months d ON d.month = p.month
     WHERE d.month IS NOT NULL OR to_regclass(quote_ident(p.name)) IS NULL`,
    [[...months.keys()], [...months.values()].map((m) => m.start)],
  );
  return gone.flatMap(({ name }) => months.get(name)?.parts ?? []);
}
