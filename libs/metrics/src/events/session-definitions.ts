import type { SessionStartFields } from './event-types';

// What metrics know of a session, declared once: its start attributes and the dimensions that
// count sessions. A chart over a new start attribute is one entry in each table (plus the
// attribute's column in the entity, a migration that backfills it, and the chart's entry).

/**
 * What a session keeps of its earliest session_start: the state member, its metric_sessions
 * column and how the event gives it. The merge (session-state.ts), the row that ingestion reads
 * and writes (session-row.ts) and the dimensions below all derive from this table.
 */
export const START_ATTRIBUTES = {
  visitorId: { column: 'visitor_id', of: (f: SessionStartFields) => f.visitorId },
  device: { column: 'device', of: (f: SessionStartFields) => f.device, filter: true },
  utmSource: { column: 'utm_source', of: (f: SessionStartFields) => f.utm?.source ?? null, filter: true },
  abVariant: { column: 'ab_variant', of: (f: SessionStartFields) => f.abVariant ?? null, filter: true },
  utmMedium: { column: 'utm_medium', of: (f: SessionStartFields) => f.utm?.medium ?? null, filter: true },
  utmCampaign: {
    column: 'utm_campaign',
    of: (f: SessionStartFields) => f.utm?.campaign ?? null,
    filter: true,
  },
} as const satisfies Record<
  string,
  { column: string; of: (f: SessionStartFields) => string | null; filter?: true }
>;

export type StartAttribute = keyof typeof START_ATTRIBUTES;
export const START_ATTRIBUTE_NAMES = Object.keys(START_ATTRIBUTES) as StartAttribute[];

/**
 * The start attributes a figure over sessions (or their events) can be narrowed to and broken
 * down by: the query parameters `device`, `utmSource`, `utmMedium`, `utmCampaign`, `abVariant`.
 * The order is that of a `segment` key's members.
 */
export type FilterName = {
  [A in StartAttribute]: (typeof START_ATTRIBUTES)[A] extends { filter: true } ? A : never;
}[StartAttribute];
export const FILTER_NAMES = START_ATTRIBUTE_NAMES.filter(
  (name) => 'filter' in START_ATTRIBUTES[name],
) as FilterName[];
/** The filter attributes' columns, in FILTER_NAMES order (step summaries and segment rollups copy them). */
export const FILTER_COLUMNS = FILTER_NAMES.map((name) => START_ATTRIBUTES[name].column);

/**
 * The key of a session's `segment`: its filter attributes in FILTER_NAMES order, each written as
 * `<length>:<value>` (its length in characters, i.e. code points) or `-` when unset, one after the
 * other: `6:mobile8:facebook8:original3:cpc-`. rawSessionSums builds the same text in SQL and
 * parseSegmentKey reads it back, so filters and breakdowns match every value exactly.
 *
 * Unlike JSON, the encoding never escapes: a member is its value plus at most 4 characters, so the
 * key always fits the segment rollups' `segment` column and a btree index row of their primary
 * key (PostgreSQL refuses rows over 2704 bytes in an 8 kB page), whatever the characters (emoji,
 * quotes, control characters):
 * - device and abVariant are among DEVICES and AB_VARIANTS: at most `7:desktop` and `8:original`,
 *   19 ASCII characters together;
 * - a utm value is stored in a varchar(200), so it has at most 200 code points of at most 4 bytes
 *   in UTF-8: its member has at most 3 + 1 + 200 = 204 characters and 4 + 800 = 804 bytes;
 * - hence a key has at most 19 + 3 × 204 = 631 characters (SEGMENT_KEY_MAX_LENGTH, under the
 *   column's 1000) and 19 + 3 × 804 = 2431 bytes (SEGMENT_KEY_MAX_BYTES); with its 4-byte length
 *   word, the funnel id (16), the grain (4), the bucket (8), the 8-byte index tuple header and
 *   at most 16 bytes of alignment, an index row stays under 2500.
 * A spec checks these bounds on the worst values (session-definitions.spec.ts).
 */
export const segmentKey = (values: (string | null)[]) =>
  values.map((value) => (value === null ? '-' : `${[...value].length}:${value}`)).join('');

/** The longest a utm value can be as stored (metric_sessions.utm_*: varchar(200)), in code points. */
export const SEGMENT_VALUE_MAX_LENGTH = 200;
export const SEGMENT_KEY_MAX_LENGTH = 631;
export const SEGMENT_KEY_MAX_BYTES = 2431;

/** The filter attributes a segmentKey() holds, in FILTER_NAMES order (null when unset). */
export function parseSegmentKey(key: string): (string | null)[] {
  const chars = [...key];
  const values: (string | null)[] = [];
  let at = 0;
  while (at < chars.length) {
    if (chars[at] === '-') {
      values.push(null);
      at += 1;
      continue;
    }
    const colon = chars.indexOf(':', at);
    const length = Number(chars.slice(at, colon).join(''));
    if (colon < 0 || !Number.isInteger(length)) throw new Error(`malformed segment key at ${at}`);
    values.push(chars.slice(colon + 1, colon + 1 + length).join(''));
    at = colon + 1 + length;
  }
  return values;
}

/**
 * The session dimensions of the segment rollups, declared once. Each has one of three shapes; the
 * contribution of a session (sessionContributions in session-state.ts), the fold's rows
 * (segments/segment-rows.ts) and the SQL that sums raw sessions at a window's edges
 * (rawSessionSums in rollups/raw-sessions.ts) are derived from the shape, never written per
 * dimension.
 */
export type SessionDimension =
  /**
   * One key per combination of the filter attributes (segmentKey), with the sessions'
   * conversions, completions and time to completion: the totals columns of the segment rollups,
   * which every session figure sums (the totals, a filter, a breakdown).
   */
  | { shape: 'segment' }
  /**
   * One key per distinct page the session viewed. With `by`, the dimension is parameterised by
   * that start attribute (`page:original`) and counts only sessions that have it.
   */
  | { shape: 'pages'; by?: StartAttribute }
  /** Per question (`answer:question_1`): each distinct latest answer, or all of them joined. */
  | { shape: 'answers'; grouped: boolean };

/** Whether a dimension counts each session's conversion, completion and time to completion. */
export const countsOutcomes = (definition: SessionDimension) => definition.shape === 'segment';

const SESSION_DIMENSION_TABLE = {
  /** Sessions that viewed a page (key = slug), for abTest=all. */
  page: { shape: 'pages' },
  'page:': { shape: 'pages', by: 'abVariant' },
  'answer:': { shape: 'answers', grouped: false },
  'answer-group:': { shape: 'answers', grouped: true },
  segment: { shape: 'segment' },
} as const satisfies Record<string, SessionDimension>;

type DimensionName = keyof typeof SESSION_DIMENSION_TABLE;

/** The dimension names the readers ask for. */
export const SESSION_DIMENSIONS = {
  page: 'page',
  pageOf: (variant: string) => `page:${variant}`,
  answer: (questionId: string) => `answer:${questionId}`,
  answerGroup: (questionId: string) => `answer-group:${questionId}`,
  segment: 'segment',
} as const;

/** The separator of an answer group's key. */
export const GROUP_SEPARATOR = '; ';

/**
 * A requested dimension's declaration and its parameter: 'answer:question_1' → the `answer:`
 * entry (`declared`) and 'question_1'; 'device' → the `device` entry and ''.
 */
export function sessionDimension(name: string): {
  declared: DimensionName;
  definition: SessionDimension;
  arg: string;
} {
  const colon = name.indexOf(':');
  const declared = (colon < 0 ? name : name.slice(0, colon + 1)) as DimensionName;
  const definition = SESSION_DIMENSION_TABLE[declared] as SessionDimension | undefined;
  if (!definition) throw new Error(`unknown session dimension ${name}`);
  return { declared, definition, arg: colon < 0 ? '' : name.slice(colon + 1) };
}

/** Every declared dimension with the name it counts under: the table's entries, in order. */
export const DECLARED_DIMENSIONS = Object.entries(SESSION_DIMENSION_TABLE) as [
  DimensionName,
  SessionDimension,
][];
