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

/**
 * The key of a session's `segment`: its filter attributes in FILTER_NAMES order, as a JSON array
 * (null when unset). rawSessionSums builds the same text in SQL.
 */
export const segmentKey = (values: (string | null)[]) => JSON.stringify(values);

/**
 * The session dimensions of the rollups, declared once. Each has one of four shapes; the
 * contribution of a session (sessionContributions in session-state.ts) and the SQL that sums raw
 * sessions at a window's edges (rawSessionSums in rollups/raw-sessions.ts) are derived from the
 * shape, never written per dimension. A chart over a new start attribute is one `attribute` entry.
 */
export type SessionDimension =
  /** Every started session under key '', with its conversion, completion and time to completion. */
  | { shape: 'totals' }
  /** One key per session: the value of a start attribute (none when unset). */
  | { shape: 'attribute'; attribute: StartAttribute }
  /**
   * One key per distinct page the session viewed. With `by`, the dimension is parameterised by
   * that start attribute (`page:original`) and counts only sessions that have it.
   */
  | { shape: 'pages'; by?: StartAttribute }
  /** Per question (`answer:question_1`): each distinct latest answer, or all of them joined. */
  | { shape: 'answers'; grouped: boolean }
  /**
   * Like `totals`, one key per combination of the filter attributes (segmentKey): what filtered
   * and broken-down session figures sum, without reading sessions one by one.
   */
  | { shape: 'segment' };

export const SESSION_DIMENSION_TABLE = {
  all: { shape: 'totals' },
  device: { shape: 'attribute', attribute: 'device' },
  source: { shape: 'attribute', attribute: 'utmSource' },
  /** Sessions that viewed a page (key = slug), for abTest=all. */
  page: { shape: 'pages' },
  'page:': { shape: 'pages', by: 'abVariant' },
  'answer:': { shape: 'answers', grouped: false },
  'answer-group:': { shape: 'answers', grouped: true },
  segment: { shape: 'segment' },
} as const satisfies Record<string, SessionDimension>;

export type DimensionName = keyof typeof SESSION_DIMENSION_TABLE;

/** The dimension names the readers ask for. */
export const SESSION_DIMENSIONS = {
  all: 'all',
  device: 'device',
  source: 'source',
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
