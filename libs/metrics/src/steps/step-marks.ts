import { Injectable } from '@nestjs/common';
import { COUNTED_EVENTS } from '../events/event-definitions';
import type { Sql } from '../events/event-store';
import type { AnswerFields, TrackedEvent } from '../events/event-types';
import { FILTER_COLUMNS, FILTER_NAMES } from '../events/session-definitions';
import type { SessionState } from '../events/session-state';
import { STEP_KINDS, StepKind } from './funnel-steps';

// A session's step summary (metric_session_steps) holds every time it reached a step key as one
// sorted bigint array of marks: the key's id (metric_step_keys, per funnel) × 2^42 plus the
// milliseconds since 2000-01-01 UTC. "The first time key k was reached at or after t" is then one
// binary search of that array (width_bucket), so a step funnel walks each session's steps with a
// few integer operations, without reading its events. 2^42 ms after 2000 is the year 2139; key
// ids up to 2^21 fit (ample for a funnel's pages, buttons and questions): a funnel's keys beyond
// that many are numbered but get no marks, rather than overflowing.

/** Events are refused before this (EVENT_LIMITS.earliest): marks are never negative. */
export const MARK_EPOCH_MS = Date.UTC(2000, 0, 1);
export const MARK_KEY_FACTOR = 2n ** 42n;
/** The SQL literal of MARK_KEY_FACTOR. */
export const MARK_KEY_SQL = MARK_KEY_FACTOR.toString();
export const MAX_MARK_KEY_ID = 2 ** 21 - 1;

const KIND_OF_TYPE = new Map<string, StepKind>(
  (Object.entries(STEP_KINDS) as [StepKind, (typeof STEP_KINDS)[StepKind]][]).map(([kind, d]) => [
    d.type,
    kind,
  ]),
);

/** The types of the events that reach a step. */
export const STEP_EVENT_TYPES: ReadonlySet<string> = new Set(KIND_OF_TYPE.keys());

/** The step key an event reaches (`page:welcome`, `click:buy`, `answer:question_1`, `conversion`), as a step names it. */
function stepKeyOf(e: TrackedEvent): string | null {
  const kind = KIND_OF_TYPE.get(e.type);
  if (!kind) return null;
  const declared = STEP_KINDS[kind];
  if (!('match' in declared)) return kind;
  const arg =
    declared.match === 'key'
      ? COUNTED_EVENTS[declared.type](e.fields).key
      : (e.fields as AnswerFields).questionId;
  return `${kind}:${arg}`;
}

// Step keys kept in memory at most, over all funnels; past it the memory starts again empty.
const CACHED_KEYS = 50_000;

/**
 * The numbers of a funnel's step keys (metric_step_keys). A key's number never changes once
 * committed (only a migration, run before the service starts, numbers keys anew), so a process
 * keeps those it has read and numbers or looks up only the keys it has not seen: most batches run
 * no statement for them. A key this transaction numbers is kept only once a later batch reads it
 * back, committed, so a rolled-back number is never reused from memory.
 */
@Injectable()
export class StepKeyNumbers {
  private readonly funnels = new Map<string, Map<string, number>>();
  private cached = 0;

  /** The numbers of `keys`, numbering the new ones; in the funnel's turn (they are numbered in order). */
  async of(sql: Sql, funnelId: string, keys: Set<string>): Promise<ReadonlyMap<string, number>> {
    let known = this.funnels.get(funnelId);
    const missing = [...keys].filter((key) => !known?.has(key));
    if (!missing.length) return known as ReadonlyMap<string, number>;
    const rows = await sql<{ key: string; id: number; added: boolean }>(
      'metrics_number_step_keys',
      `WITH named AS (
         SELECT n.key, n.id FROM metric_step_keys n WHERE n.funnel_id = $1 AND n.key = ANY($2::text[])
       ), added AS (
         INSERT INTO metric_step_keys (funnel_id, key, id)
         SELECT $1, w.key,
                coalesce((SELECT x.id FROM metric_step_keys x WHERE x.funnel_id = $1 ORDER BY x.id DESC LIMIT 1), 0)
                  + row_number() OVER (ORDER BY w.key)
         FROM unnest($2::text[]) AS w(key) WHERE w.key NOT IN (SELECT n.key FROM named n)
         RETURNING key, id
       )
       SELECT key, id, false AS added FROM named UNION ALL SELECT key, id, true FROM added`,
      [funnelId, missing],
    );
    if (this.cached + rows.length > CACHED_KEYS) {
      this.funnels.clear();
      this.cached = 0;
      known = undefined;
    }
    if (!known) this.funnels.set(funnelId, (known = new Map()));
    const numbers = new Map(known);
    for (const row of rows) {
      numbers.set(row.key, row.id);
      if (!row.added && !known.has(row.key)) {
        known.set(row.key, row.id);
        this.cached++;
      }
    }
    return numbers;
  }

  /**
   * The numbers this process holds of a funnel's keys, all committed: a batch can use them
   * before its turn, and asks `of` in its turn only for keys missing here.
   */
  known(funnelId: string): ReadonlyMap<string, number> {
    return this.funnels.get(funnelId) ?? NO_KEYS;
  }

  /** The marks of `reaches` (stepMarks), numbering their new keys; in the funnel's turn. */
  async marks(sql: Sql, funnelId: string, reaches: StepReach[]): Promise<Map<string, string>> {
    const numbers = await this.of(sql, funnelId, new Set(reaches.map((r) => r.key)));
    const marks = stepMarks(reaches, numbers);
    if (!marks) throw new Error('a step key was left without a number');
    return marks;
  }
}

const NO_KEYS: ReadonlyMap<string, number> = new Map();

/** An event that reaches a step: its session, the step key and when (epoch ms). */
interface StepReach {
  sessionId: string;
  key: string;
  at: number;
}

/** The events that reach a step, with their keys (stepKeyOf, once per event). */
export function stepReaches(events: TrackedEvent[]): StepReach[] {
  const reaches: StepReach[] = [];
  for (const e of events) {
    const key = stepKeyOf(e);
    if (key !== null) reaches.push({ sessionId: e.sessionId, key, at: e.occurredAt });
  }
  return reaches;
}

// MARK_KEY_FACTOR (2^42) in two decimal limbs: 439804 × 10^7 + 6511104.
const LIMB = 10_000_000;
const FACTOR_HIGH = 439_804;
const FACTOR_LOW = 6_511_104;

/**
 * The decimal text of the mark id × 2^42 + ms (as the bigint the summaries store), in doubles: a
 * batch writes a mark per step event, and BigInt arithmetic was the larger part of writing them.
 * With id < 2^21 and 0 ≤ ms < 2^42, every partial sum below stays under 2^53, so it is exact;
 * other values (times before 2000 or after 2139) take BigInt.
 */
export function markText(id: number, ms: number): string {
  if (ms < 0 || ms >= 2 ** 42 || id > MAX_MARK_KEY_ID)
    return (BigInt(id) * MARK_KEY_FACTOR + BigInt(ms)).toString();
  const msHigh = Math.floor(ms / LIMB);
  let low = id * FACTOR_LOW + (ms - msHigh * LIMB);
  const carry = Math.floor(low / LIMB);
  low -= carry * LIMB;
  const high = id * FACTOR_HIGH + msHigh + carry;
  return high > 0 ? `${high}${String(low).padStart(7, '0')}` : String(low);
}

/** `,"<column>":` for each filter attribute's column, in FILTER_NAMES order. */
const FILTER_MEMBERS = FILTER_COLUMNS.map((column) => `,${JSON.stringify(column)}:`);

/**
 * Each session's new marks (sorted, distinct) as the members of a JSON array, from a batch's step
 * events; null when a key has no number in `numbers`. It needs the keys' numbers but not the
 * sessions, so a batch computes it before its funnel's turn with the numbers this process holds
 * (StepKeyNumbers.known), and again in the turn only when a key is new.
 */
export function stepMarks(
  reaches: StepReach[],
  numbers: ReadonlyMap<string, number>,
): Map<string, string> | null {
  // Per session: the marks as (key number, ms since MARK_EPOCH_MS) pairs, which sort as the marks do.
  const pairs = new Map<string, [number, number][]>();
  for (const r of reaches) {
    const id = numbers.get(r.key);
    if (id === undefined) return null;
    if (id > MAX_MARK_KEY_ID) continue;
    let list = pairs.get(r.sessionId);
    if (!list) pairs.set(r.sessionId, (list = []));
    list.push([id, r.at - MARK_EPOCH_MS]);
  }
  const marks = new Map<string, string>();
  for (const [sessionId, list] of pairs) {
    list.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let text = '';
    for (let i = 0; i < list.length; i++)
      if (i === 0 || list[i][0] !== list[i - 1][0] || list[i][1] !== list[i - 1][1])
        text += (text ? ',' : '') + markText(list[i][0], list[i][1]);
    marks.set(sessionId, text);
  }
  return marks;
}

/**
 * A batch's step summary rows (the JSON parameter of stepSummaryUpsertSql): for each session with
 * new marks (stepMarks), those, and for each session whose start changed, none; with the start and
 * filter attributes of the session as it is after the batch.
 */
export function stepSummaryRowsJson(
  marks: ReadonlyMap<string, string>,
  changed: { before: SessionState; after: SessionState }[],
  stateOf: (sessionId: string) => SessionState,
): string {
  const rows: string[] = [];
  const row = (sessionId: string, texts: string) => {
    const state = stateOf(sessionId);
    const started = state.startedAt === null ? 'null' : String(state.startedAt - MARK_EPOCH_MS);
    let filters = '';
    for (let i = 0; i < FILTER_NAMES.length; i++)
      filters += FILTER_MEMBERS[i] + JSON.stringify(state[FILTER_NAMES[i]]);
    rows.push(
      `{"session_id":${JSON.stringify(sessionId)},"started_ms":${started}${filters},"marks":[${texts}]}`,
    );
  };
  for (const [sessionId, texts] of marks) row(sessionId, texts);
  for (const c of changed)
    if (c.before.startedAt !== c.after.startedAt || c.before.startEventId !== c.after.startEventId)
      if (!marks.has(c.after.sessionId)) row(c.after.sessionId, '');
  return `[${rows.join(',')}]`;
}

/**
 * Merges step summary rows (a JSON parameter of stepSummaryRowsJson) into a funnel's summaries:
 * the marks added to the stored ones, the start and filter attributes replaced. A data-modifying
 * CTE body for the batch's statement (events/batch-writes.ts).
 */
export const stepSummaryUpsertSql = (funnel: string, rows: string) =>
  `INSERT INTO metric_session_steps AS st (funnel_id, session_id, started_ms, ${FILTER_COLUMNS.join(', ')}, marks)
   SELECT ${funnel}, v.session_id, v.started_ms, ${FILTER_COLUMNS.map((c) => `v.${c}`).join(', ')}, v.marks
   FROM json_to_recordset(${rows}) AS v(session_id text, started_ms bigint,
     ${FILTER_COLUMNS.map((c) => `${c} text`).join(', ')}, marks bigint[])
   ON CONFLICT (funnel_id, session_id) DO UPDATE SET
     started_ms = EXCLUDED.started_ms,
     ${FILTER_COLUMNS.map((c) => `${c} = EXCLUDED.${c}`).join(', ')},
     marks = CASE WHEN cardinality(EXCLUDED.marks) = 0 THEN st.marks
                  ELSE ARRAY(SELECT DISTINCT x FROM unnest(st.marks || EXCLUDED.marks) AS x ORDER BY x) END`;
