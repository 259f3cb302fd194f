import type { EntityManager } from 'typeorm';
import { COUNTED_EVENTS } from '../events/event-definitions';
import { FILTER_COLUMNS } from '../events/session-definitions';
import { SESSION_COLUMNS, sessionFromRow, SessionRow } from '../events/session-row';
import { at, iso, millis } from '../sql/epoch';
import { bucketStart, FINEST_SEGMENT_GRAIN, SECOND_MS } from '../time/buckets';
import type { Range } from '../time/time-cover';
import {
  COARSER_GRAINS,
  coarserRows,
  EventSum,
  finestRows,
  rowsDocuments,
  SegmentRow,
  STORED_COLUMNS,
  storedRow,
  upsertRowsSql,
  withStoredEvents,
} from './segment-rows';
import { droppedParts } from './segment-retention';

// What a fold computes and writes for given minutes, whatever schedules it (SegmentFolder): each
// minute whole from the raw rows, the coarser buckets once whole from the finer rows, and the
// writes that make the stored rows those.

/** The rows of one grain a fold computes: every row of the buckets in `ranges`. */
interface Computed {
  grain: number;
  ranges: Range[];
  rows: SegmentRow[];
}

/**
 * The buckets of `grain` (seconds) that a fold must compute again: those holding finer buckets
 * it computed (`finer`) and the one the watermark's move from `before` completes, which holds
 * minutes folded earlier. Only whole buckets, ending at or before the watermark `after`: reads
 * take no others (planWindow), so a bucket is summed once when its last minute is folded, not
 * again with every chunk inside it.
 */
export function coarserBuckets(grain: number, finer: Range[], before: number, after: number): Range[] {
  const size = grain * SECOND_MS;
  const starts = new Set<number>();
  for (const r of finer) for (let b = bucketStart(r.from, grain); b < r.to; b += size) starts.add(b);
  const across = bucketStart(before, grain);
  if (across < before) starts.add(across);
  return [...starts]
    .filter((b) => b + size <= after)
    .sort((a, b) => a - b)
    .map((b) => ({ from: b, to: b + size }));
}

/** `ranges` without `parts` (each part lies inside one of them). */
const subtract = (ranges: Range[], parts: Range[]): Range[] =>
  ranges.flatMap((r) => {
    const cuts = parts.filter((p) => r.from <= p.from && p.to <= r.to).sort((a, b) => a.from - b.from);
    const left: Range[] = [];
    let from = r.from;
    for (const c of cuts) {
      if (from < c.from) left.push({ from, to: c.from });
      from = c.to;
    }
    if (from < r.to) left.push({ from, to: r.to });
    return left;
  });
const inside = (ms: number, ranges: Range[]) => ranges.some((r) => r.from <= ms && ms < r.to);
const covers = (ranges: Range[], bucket: Range) => {
  let at = bucket.from;
  for (const r of ranges) if (r.from <= at && at < r.to) at = r.to;
  return at >= bucket.to;
};

/**
 * The minute sums of a funnel's counted events ($1 the funnel; $2, $3 the ranges' starts and
 * ends; $4 the counted types), with the filter attributes of their sessions. Each event finds its
 * session by one probe of the primary key, memoized per session: a lateral subquery, because a
 * join is planned on the table's statistics, and for a funnel newer than them (estimated at one
 * session) the planner compared every event with every session of the funnel. The start is
 * checked outside the probe, so that the partial start-time index cannot serve it.
 */
export const FOLD_EVENT_SUMS_SQL = `SELECT (floor(extract(epoch FROM e.occurred_at) / ${FINEST_SEGMENT_GRAIN}) * ${FINEST_SEGMENT_GRAIN * SECOND_MS})::float8 AS bucket,
          e.type, coalesce(e.key, '') AS key,
          ${FILTER_COLUMNS.map((c) => `m.${c}`).join(', ')},
          count(*)::int AS events, count(e.time_on_page_ms)::int AS timed,
          coalesce(sum(e.time_on_page_ms), 0)::float8 AS total_ms,
          (array_agg(e.button_label ORDER BY e.occurred_at DESC, e.button_label COLLATE "C" DESC)
             FILTER (WHERE e.button_label IS NOT NULL))[1] AS label,
          ${millis('max(e.occurred_at) FILTER (WHERE e.button_label IS NOT NULL)')} AS label_at
   FROM unnest($2::timestamptz[], $3::timestamptz[]) AS w(lo, hi)
   CROSS JOIN unnest($4::text[]) AS ty(type)
   CROSS JOIN LATERAL (
     SELECT * FROM metric_events e WHERE e.funnel_id = $1 AND e.type = ty.type AND e.occurred_at >= w.lo AND e.occurred_at < w.hi OFFSET 0
   ) AS e
   LEFT JOIN LATERAL (
     SELECT * FROM metric_sessions m WHERE m.funnel_id = $1 AND m.session_id = e.session_id LIMIT 1
   ) AS m ON m.started_at IS NOT NULL
   GROUP BY 1, 2, 3, ${FILTER_COLUMNS.map((c) => `m.${c}`).join(', ')}`;

/** The sessions started in ranges ($2, $3: their starts and ends) of funnel $1, one index range each. */
export const FOLD_SESSIONS_SQL = `SELECT ${SESSION_COLUMNS} FROM unnest($2::timestamptz[], $3::timestamptz[]) AS w(lo, hi)
     CROSS JOIN LATERAL (
       SELECT * FROM metric_sessions m WHERE m.funnel_id = $1 AND m.started_at >= w.lo AND m.started_at < w.hi OFFSET 0
     ) AS metric_sessions`;

/** The stored segment rollup rows of funnel $1 of grains $2 in ranges ($3, $4). */
export const FOLD_STORED_ROWS_SQL = `SELECT ${STORED_COLUMNS}
     FROM unnest($2::int[], $3::timestamptz[], $4::timestamptz[]) AS w(grain, lo, hi)
     CROSS JOIN LATERAL (
       SELECT * FROM metric_segment_rollups r
       WHERE r.funnel_id = $1 AND r.grain = w.grain AND r.bucket >= w.lo AND r.bucket < w.hi OFFSET 0
     ) AS r`;

/**
 * The fold's write of funnel $1: the rows of the ranges ($2 grains, $3 starts, $4 ends) whose key
 * ($5 grain, $6 bucket, $7 segment) is not kept deleted, then the `documents` JSON documents from
 * $8 on upserted (upsertRowsSql).
 */
export const foldReplaceSql = (documents: number) => `WITH gone AS (
       DELETE FROM metric_segment_rollups r USING unnest($2::int[], $3::timestamptz[], $4::timestamptz[]) AS w(grain, lo, hi)
       WHERE r.funnel_id = $1 AND r.grain = w.grain AND r.bucket >= w.lo AND r.bucket < w.hi
         AND NOT EXISTS (SELECT 1 FROM unnest($5::int[], $6::bigint[], $7::text[]) AS k(grain, bucket, segment)
                         WHERE k.grain = r.grain AND ${at('k.bucket')} = r.bucket AND k.segment = r.segment)
     )
     ${upsertRowsSql('$1', documents, 8)}`;

/**
 * Computes the minute rows of `minutes` from the raw rows and the whole coarser
 * buckets above them (coarserBuckets) from the finer rows, those in hand and those read for the
 * rest of a bucket, and writes what changed: one statement reads, one writes.
 */
export async function refold(
  manager: EntityManager,
  funnelId: string,
  minutes: Range[],
  foldedBefore: number,
  foldedAfter: number,
): Promise<void> {
  const levels: Computed[] = [
    {
      grain: FINEST_SEGMENT_GRAIN,
      ranges: minutes,
      rows: minutes.length ? await minuteRows(manager, funnelId, minutes) : [],
    },
  ];
  // The finer rows of each coarser bucket not wholly computed here, read in one statement.
  const wanted: { grain: number; range: Range }[] = [];
  let finer = levels[0];
  const plans = COARSER_GRAINS.map((grain) => {
    const buckets = coarserBuckets(grain, finer.ranges, foldedBefore, foldedAfter);
    for (const b of buckets) if (!covers(finer.ranges, b)) wanted.push({ grain: finer.grain, range: b });
    const plan = { grain, finer: finer.grain, finerRanges: finer.ranges, buckets };
    finer = { grain, ranges: buckets, rows: [] };
    return plan;
  });
  const stored = wanted.length ? await read(manager, funnelId, wanted) : [];
  for (const plan of plans) {
    const below = levels[levels.length - 1];
    const rows = [
      ...below.rows,
      // Stored finer rows of the buckets' other parts (those computed here replace theirs).
      ...stored.filter((r) => r.grain === plan.finer && !inside(r.bucket, plan.finerRanges)),
    ].filter((r) => inside(r.bucket, plan.buckets));
    levels.push({ grain: plan.grain, ranges: plan.buckets, rows: coarserRows(rows, plan.grain) });
  }
  await replace(manager, funnelId, levels);
}

/**
 * The minute rows of the ranges, from the sessions started and the events counted in them. In a
 * month whose raw events the retention dropped (a late change of a session started then), the
 * events count as stored: folded whole from raw rows that are gone, they would count nowhere.
 */
async function minuteRows(manager: EntityManager, funnelId: string, ranges: Range[]): Promise<SegmentRow[]> {
  const dropped = await droppedParts(manager, ranges);
  const raw = dropped.length ? subtract(ranges, dropped) : ranges;
  const minute = await computedRows(manager, funnelId, ranges, raw);
  if (!dropped.length) return minute;
  const stored = await read(
    manager,
    funnelId,
    dropped.map((range) => ({ grain: FINEST_SEGMENT_GRAIN, range })),
  );
  return withStoredEvents(minute, stored);
}

/** Minute rows of the sessions started in `ranges` and of the raw events counted in `raw`. */
async function computedRows(
  manager: EntityManager,
  funnelId: string,
  ranges: Range[],
  raw: Range[],
): Promise<SegmentRow[]> {
  const los = ranges.map((r) => iso(r.from));
  const his = ranges.map((r) => iso(r.to));
  const sessionRows: SessionRow[] = await manager.query(FOLD_SESSIONS_SQL, [funnelId, los, his]);
  const eventRows: Record<string, unknown>[] = await manager.query(FOLD_EVENT_SUMS_SQL, [
    funnelId,
    raw.map((r) => iso(r.from)),
    raw.map((r) => iso(r.to)),
    Object.keys(COUNTED_EVENTS),
  ]);
  const events: EventSum[] = eventRows.map((r) => ({
    bucket: Number(r.bucket),
    attributes: FILTER_COLUMNS.map((c) => r[c] as string | null),
    type: r.type as string,
    key: r.key as string,
    events: Number(r.events),
    timed: Number(r.timed),
    totalMs: Number(r.total_ms),
    label: r.label as string | null,
    labelAt: r.label_at === null ? null : Number(r.label_at),
  }));
  return finestRows(sessionRows.map(sessionFromRow), events);
}

/** The stored rows of the given grains and ranges. */
async function read(
  manager: EntityManager,
  funnelId: string,
  wanted: { grain: number; range: Range }[],
): Promise<SegmentRow[]> {
  const rows: Record<string, unknown>[] = await manager.query(FOLD_STORED_ROWS_SQL, [
    funnelId,
    wanted.map((w) => w.grain),
    wanted.map((w) => iso(w.range.from)),
    wanted.map((w) => iso(w.range.to)),
  ]);
  return rows.map(storedRow);
}

/**
 * Makes the stored rows of each level's ranges its rows, in one statement: deletes the rows of
 * segments no longer there and writes a row only where it is new or differs, so folding a
 * minute again rewrites only what changed.
 */
async function replace(manager: EntityManager, funnelId: string, levels: Computed[]): Promise<void> {
  const ranges = levels.flatMap((l) => l.ranges.map((r) => ({ grain: l.grain, ...r })));
  if (!ranges.length) return;
  const rows = levels.flatMap((l) => l.rows.map((r) => ({ ...r, grain: l.grain })));
  // The rows as JSON documents, each its own parameter from $8 on; the kept keys travel apart
  // from the rows, so that the rows are read once, by the insert.
  const documents = rowsDocuments(rows);
  await manager.query(foldReplaceSql(documents.length), [
    funnelId,
    ranges.map((r) => r.grain),
    ranges.map((r) => iso(r.from)),
    ranges.map((r) => iso(r.to)),
    rows.map((r) => r.grain),
    rows.map((r) => r.bucket),
    rows.map((r) => r.segment),
    ...documents,
  ]);
}
