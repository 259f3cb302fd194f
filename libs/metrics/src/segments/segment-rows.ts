import { DECLARED_EVENT_DIMENSIONS } from '../events/event-definitions';
import {
  DECLARED_DIMENSIONS,
  FILTER_COLUMNS,
  FILTER_NAMES,
  segmentKey,
  SESSION_DIMENSIONS,
} from '../events/session-definitions';
import { sessionContributions, SessionState } from '../events/session-state';
import { addSessions, emptySessions, SessionCounts } from '../rollups/counts';
import { at, millis } from '../sql/epoch';
import { bucketStart, FINEST_SEGMENT_GRAIN, SEGMENT_GRAINS } from '../time/buckets';

// What a segment rollup row holds, derived from the declarations: the segment's session totals
// (its `segment` dimension), the session dimensions those cannot answer (pages viewed, answers)
// and every dimension counted from events.

/** The session dimensions (by declared name) kept per segment in its `sessions` document: pages viewed and answers. */
const SEGMENT_SESSION_SHAPES = new Set(['pages', 'answers']);
const KEPT_SESSION_DIMENSIONS = new Set(
  DECLARED_DIMENSIONS.filter(([, d]) => SEGMENT_SESSION_SHAPES.has(d.shape)).map(([name]) => name as string),
);

/** True when a requested session dimension ('page', 'answer:question_1', …) is in a segment row's `sessions` document. */
export const inSessionsDocument = (dimension: string) => {
  const colon = dimension.indexOf(':');
  return KEPT_SESSION_DIMENSIONS.has(colon < 0 ? dimension : dimension.slice(0, colon + 1));
};

/** [events, timed, total ms, latest label, its epoch ms]. */
type EventCell = [number, number, number, string | null, number | null];

export interface SegmentRow {
  grain: number;
  /** Epoch ms. */
  bucket: number;
  segment: string;
  attributes: (string | null)[];
  /** The segment's sessions started in the bucket, their conversions, completions and time to completion. */
  totals: SessionCounts;
  sessions: Record<string, Record<string, number>>;
  events: Record<string, Record<string, EventCell>>;
}

/** Page views and clicks of one finest bucket (a minute), segment and key, as the fold's statement sums them. */
export interface EventSum {
  /** Epoch ms. */
  bucket: number;
  attributes: (string | null)[];
  type: string;
  key: string;
  events: number;
  timed: number;
  totalMs: number;
  label: string | null;
  labelAt: number | null;
}

/** Newer label wins; at equal times the greater (by bytes, as COLLATE "C" orders them). */
function mergeCell(into: EventCell, from: EventCell): void {
  into[0] += from[0];
  into[1] += from[1];
  into[2] += from[2];
  const [label, at] = [from[3], from[4]];
  if (label === null || at === null) return;
  if (
    into[4] === null ||
    at > into[4] ||
    (at === into[4] && Buffer.compare(Buffer.from(label), Buffer.from(into[3] as string)) > 0)
  ) {
    into[3] = label;
    into[4] = at;
  }
}

class Rows {
  readonly byId = new Map<string, SegmentRow>();

  row(grain: number, bucket: number, attributes: (string | null)[]): SegmentRow {
    const segment = segmentKey(attributes);
    const id = `${grain}\u0000${bucket}\u0000${segment}`;
    let row = this.byId.get(id);
    if (!row)
      this.byId.set(
        id,
        (row = { grain, bucket, segment, attributes, totals: emptySessions(), sessions: {}, events: {} }),
      );
    return row;
  }
}

/**
 * The finest rows (FINEST_SEGMENT_GRAIN) of the given sessions (at their start) and event sums (at
 * their bucket): per segment, what each kept dimension counts
 * (sessionContributions, the event dimensions' declarations).
 */
export function finestRows(sessions: SessionState[], events: EventSum[]): SegmentRow[] {
  const grain = FINEST_SEGMENT_GRAIN;
  const rows = new Rows();
  for (const s of sessions) {
    if (s.startedAt === null) continue;
    const row = rows.row(
      grain,
      bucketStart(s.startedAt, grain),
      FILTER_NAMES.map((name) => s[name]),
    );
    for (const c of sessionContributions(s)) {
      // The `segment` contribution's key is the row's: its counts are the row's totals.
      if (c.dimension === SESSION_DIMENSIONS.segment) addSessions(row.totals, c);
      if (!inSessionsDocument(c.dimension)) continue;
      const keys = (row.sessions[c.dimension] ??= {});
      keys[c.key] = (keys[c.key] ?? 0) + c.sessions;
    }
  }
  for (const e of events) {
    const row = rows.row(grain, e.bucket, e.attributes);
    for (const [name, d] of DECLARED_EVENT_DIMENSIONS) {
      if (d.type !== e.type) continue;
      const keys = (row.events[name] ??= {});
      const key = d.keyed ? e.key : '';
      const cell = (keys[key] ??= [0, 0, 0, null, null]);
      mergeCell(cell, [
        e.events,
        d.timed ? e.timed : 0,
        d.timed ? e.totalMs : 0,
        d.labelled ? e.label : null,
        d.labelled ? e.labelAt : null,
      ]);
    }
  }
  return [...rows.byId.values()];
}

/**
 * Rows of one grain whose event cells in the minutes whose raw events the retention dropped are the
 * stored rows' (`stored`, of that grain and those minutes only: computed, they hold no events); the
 * sessions still count from the computed rows, and the events of the other minutes stay as computed.
 */
export function withStoredEvents(computed: SegmentRow[], stored: SegmentRow[]): SegmentRow[] {
  const rows = new Rows();
  for (const c of computed)
    Object.assign(rows.row(c.grain, c.bucket, c.attributes), {
      totals: c.totals,
      sessions: c.sessions,
      events: c.events,
    });
  for (const s of stored) rows.row(s.grain, s.bucket, s.attributes).events = s.events;
  return [...rows.byId.values()].filter(
    (r) => r.totals.sessions > 0 || Object.keys(r.sessions).length > 0 || Object.keys(r.events).length > 0,
  );
}

/** The rows of a coarser grain summed from finer rows (each bucket of `grain` from those inside it). */
export function coarserRows(finer: SegmentRow[], grain: number): SegmentRow[] {
  const rows = new Rows();
  for (const f of finer) {
    const row = rows.row(grain, bucketStart(f.bucket, grain), f.attributes);
    addSessions(row.totals, f.totals);
    for (const [dimension, keys] of Object.entries(f.sessions)) {
      const into = (row.sessions[dimension] ??= {});
      for (const [key, n] of Object.entries(keys)) into[key] = (into[key] ?? 0) + n;
    }
    for (const [dimension, keys] of Object.entries(f.events)) {
      const into = (row.events[dimension] ??= {});
      for (const [key, cell] of Object.entries(keys)) mergeCell((into[key] ??= [0, 0, 0, null, null]), cell);
    }
  }
  return [...rows.byId.values()];
}

/** The grains above the minute, finest first: five minutes, quarter hour, hour, day. */
export const COARSER_GRAINS = [...SEGMENT_GRAINS].reverse().filter((g) => g > FINEST_SEGMENT_GRAIN);

/** A row's session totals (SegmentRow.totals: sessions, conversions, completions, completionMs), as columns. */
const TOTAL_COLUMNS: readonly string[] = ['started', 'conversions', 'completions', 'completion_ms'];
const totalColumns = (t: SessionCounts) => ({
  started: t.sessions,
  conversions: t.conversions,
  completions: t.completions,
  completion_ms: t.completionMs,
});
const DOCUMENT_COLUMNS = ['sessions', 'events'];
/** What a row holds besides its key and attributes: the totals' columns, `sessions`, `events`. */
const VALUE_COLUMNS: readonly string[] = [...TOTAL_COLUMNS, ...DOCUMENT_COLUMNS];

/** The select list that reads a stored row `r` of metric_segment_rollups, for storedRow(). */
export const STORED_COLUMNS = `r.grain, ${millis('r.bucket')} AS bucket, r.segment, ${FILTER_COLUMNS.map((c) => `r.${c}`).join(', ')}, ${VALUE_COLUMNS.map((c) => `r.${c}`).join(', ')}`;

/** A row read with STORED_COLUMNS. */
export const storedRow = (r: Record<string, unknown>): SegmentRow => ({
  grain: Number(r.grain),
  bucket: Number(r.bucket),
  segment: r.segment as string,
  attributes: FILTER_COLUMNS.map((c) => r[c] as string | null),
  totals: {
    sessions: Number(r.started),
    conversions: Number(r.conversions),
    completions: Number(r.completions),
    completionMs: Number(r.completion_ms),
  },
  sessions: r.sessions as SegmentRow['sessions'],
  events: r.events as SegmentRow['events'],
});

/**
 * Rows per JSON parameter of a write. PostgreSQL turns one large document into jsonb more slowly
 * per byte than several smaller ones: 1,462 rows (860 KB) took 46 ms as one and 19.5 ms as four
 * (docs/BENCHMARKS.md).
 */
const ROWS_PER_DOCUMENT = 250;
const ROW_RECORD = `v(grain int, bucket bigint, segment text, ${FILTER_COLUMNS.map((c) => `${c} text`).join(', ')}, started int, conversions int, completions int, completion_ms bigint, sessions jsonb, events jsonb)`;

/** Rows as JSON documents of at most ROWS_PER_DOCUMENT rows each (one empty document when none). */
export function rowsDocuments(rows: SegmentRow[]): string[] {
  const documents: string[] = [];
  for (let from = 0; from === 0 || from < rows.length; from += ROWS_PER_DOCUMENT)
    documents.push(
      JSON.stringify(
        rows.slice(from, from + ROWS_PER_DOCUMENT).map((r) => ({
          grain: r.grain,
          bucket: r.bucket,
          segment: r.segment,
          ...Object.fromEntries(FILTER_COLUMNS.map((c, i) => [c, r.attributes[i]])),
          ...totalColumns(r.totals),
          sessions: r.sessions,
          events: r.events,
        })),
      ),
    );
  return documents;
}

/**
 * The INSERT that writes the rows of `documents` JSON documents (rowsDocuments) bound from
 * parameter `first` on, for funnel `funnel`: new rows inserted, a stored row rewritten only where
 * it differs.
 */
export function upsertRowsSql(funnel: string, documents: number, first: number): string {
  const values = Array.from(
    { length: documents },
    (_, i) => `SELECT * FROM jsonb_to_recordset($${first + i}::jsonb) AS ${ROW_RECORD}`,
  ).join(' UNION ALL ');
  const list = (prefix: string, columns: readonly string[]) => columns.map((c) => `${prefix}${c}`).join(', ');
  return `INSERT INTO metric_segment_rollups AS r (funnel_id, grain, bucket, segment, ${FILTER_COLUMNS.join(', ')}, ${VALUE_COLUMNS.join(', ')})
       SELECT ${funnel}, v.grain, ${at('v.bucket')}, v.segment, ${list('v.', FILTER_COLUMNS)}, ${list('v.', VALUE_COLUMNS)}
       FROM (${values}) AS v
       ON CONFLICT (funnel_id, grain, bucket, segment) DO UPDATE SET ${VALUE_COLUMNS.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}
       WHERE (${list('r.', VALUE_COLUMNS)}) IS DISTINCT FROM (${list('EXCLUDED.', VALUE_COLUMNS)})`;
}
