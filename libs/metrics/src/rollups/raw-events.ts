import { CONTACT_MESSAGES_SQL } from '@app/contacts';
import type { EventDimension } from '../events/event-definitions';

// The raw rows of an event dimension in one edge piece of a window [lo, hi), as its declaration
// (events/event-definitions.ts) reads them; `sign` is the piece's (1, or −1 for a part subtracted
// from a bucket).

type Counted = EventDimension & { source: 'events' };

/**
 * The events of a dimension counted from events, as rows (sign, key, button_label,
 * time_on_page_ms, occurred_at), read by the key (funnel, type, time) and from plain columns,
 * never from the json payload. What the dimension does not count reads as NULL ('' for the key).
 * `sessions` (sessionJoinSql) keeps only the events of the sessions a filter matches.
 */
export const rawEvents =
  (d: Counted, funnel: string, eventType: string, sessions = '') =>
  (lo: string, hi: string, sign: number) =>
    `SELECT ${sign} AS sign, ${d.keyed ? 'e.key' : `''::text AS key`},
            ${d.labelled ? 'e.button_label' : 'NULL::text AS button_label'},
            ${d.timed ? 'e.time_on_page_ms' : 'NULL::int AS time_on_page_ms'}, e.occurred_at
     FROM metric_events e ${sessions} WHERE e.funnel_id = ${funnel} AND e.type = ${eventType} AND e.occurred_at >= ${lo} AND e.occurred_at < ${hi}`;

/**
 * The signed number of events of a dimension counted from events in the piece, as one row after
 * `select` (what the caller computes of the piece's lower bound).
 */
export const rawEventCount =
  (d: Counted, funnel: string, select: (lo: string) => string) => (lo: string, hi: string, sign: number) =>
    `SELECT ${select(lo)}, ${sign} * count(*)
     FROM metric_events e
     WHERE e.funnel_id = ${funnel} AND e.occurred_at >= ${lo} AND e.occurred_at < ${hi} AND e.type = '${d.type}'`;

/**
 * The messages of a messages dimension sent in the piece, as rows (delivered_at, opened_at): their
 * send time is contacts', read through the relation contacts exports.
 */
export const rawMessages = (funnel: string) => (lo: string, hi: string) =>
  `SELECT m.delivered_at, m.opened_at FROM ${CONTACT_MESSAGES_SQL.sentIn(funnel, lo, hi)} AS c
   JOIN metric_messages m ON m.funnel_id = ${funnel} AND m.message_id = c.id`;
