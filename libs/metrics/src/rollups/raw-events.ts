import type { EventDimension } from '../events/event-definitions';

// The raw rows of an event dimension in one edge piece of a window [lo, hi), as its declaration
// (events/event-definitions.ts) reads them; `sign` is the piece's (1, or −1 for a part subtracted
// from a bucket).

/**
 * The events of a dimension counted from events, as rows (sign, key, button_label,
 * time_on_page_ms, occurred_at), read by the key (funnel, type, time) and from plain columns,
 * never from the json payload. What the dimension does not count reads as NULL ('' for the key).
 * `sessions` (sessionJoinSql) keeps only the events of the sessions a filter matches.
 */
export const rawEvents =
  (d: EventDimension, funnel: string, eventType: string, sessions = '') =>
  (lo: string, hi: string, sign: number) =>
    `SELECT ${sign} AS sign, ${d.keyed ? 'e.key' : `''::text AS key`},
            ${d.labelled ? 'e.button_label' : 'NULL::text AS button_label'},
            ${d.timed ? 'e.time_on_page_ms' : 'NULL::int AS time_on_page_ms'}, e.occurred_at
     FROM metric_events e ${sessions} WHERE e.funnel_id = ${funnel} AND e.type = ${eventType} AND e.occurred_at >= ${lo} AND e.occurred_at < ${hi}`;
