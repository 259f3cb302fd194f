import {
  CountedDimensionName,
  EVENT_DIMENSION_TABLE,
  EventDimension,
  MESSAGE_DIMENSION,
  MESSAGE_KEYS,
} from '../events/event-definitions';
import { isFiltered, MetricWindow, SessionFilter } from '../query/metric-query';
import { cellsOf, partialLabelKeys, segmentEventSums, segmentRollupRows } from '../segments/segment-sql';
import type { SegmentPlan } from '../segments/segment-state';
import { SqlParams } from '../sql/sql-params';
import { MESSAGE_GRAINS } from '../time/buckets';
import { coverWindow } from '../time/time-cover';
import type { OffsetPeriod } from '../time/time-zone';
import { offsetAtSql } from '../time/zone-sql';
import { CONTACT_MESSAGES_SQL } from '@app/contacts';
import { IN_SEGMENT, pieceScans, segments } from './cover-sql';
import { sessionJoinSql } from './session-filter-sql';

// The statements that read page views, clicks and messages, rendered from their plan
// (planRead): whole buckets of the folded segment rollups, and the raw events of the rest,
// each joined to its session for a filter.

/** A statement and its parameters. */
export interface Statement {
  text: string;
  values: unknown[];
}

/** Minutes since the epoch of a time. */
const minuteOf = (time: string) => `floor(extract(epoch FROM ${time}) / 60)::bigint`;
/** The weekday-hour slot (0..167) of `h`, local hours since the epoch; 1970-01-01 was a Thursday (ISO weekday 4). */
const SLOT = `((h / 24 + 3) % 7) * 24 + h % 24`;

/** Page views of the sessions the filter matches (all without one) per local weekday-hour slot (`slot`, `events`). */
export function activitySql(
  plan: SegmentPlan,
  funnelId: string,
  periods: OffsetPeriod[],
  dimension: CountedDimensionName,
  filter: SessionFilter,
): Statement {
  const params = new SqlParams();
  const funnel = params.bind(funnelId);
  const offsetAt = offsetAtSql(periods, params);
  const localHour = (minutes: string) => `(${minutes} - ${offsetAt(minutes)}) / 60`;
  const minute = minuteOf('e.occurred_at');
  const eventType = params.bind(EVENT_DIMENSION_TABLE[dimension].type);
  const join = isFiltered(filter) ? sessionJoinSql(funnel, filter, params) : '';
  return {
    text: `SELECT ${SLOT} AS slot, sum(b.events) AS events
     FROM (
       SELECT ${localHour('extract(epoch FROM r.bucket)::bigint / 60')} AS h,
              s.sign * (r.events -> ${params.bind(dimension)} -> '' ->> 0)::bigint AS events
       FROM ${segmentRollupRows(plan, funnel, filter, params, 'r.bucket, r.events')}
       UNION ALL
       SELECT ${localHour(minute)} AS h, e.sign AS events
       FROM (${pieceScans(
         plan.raw,
         params,
         (lo, hi, sign) => `SELECT ${sign} AS sign, e.occurred_at FROM metric_events e ${join}
           WHERE e.funnel_id = ${funnel} AND e.type = ${eventType} AND e.occurred_at >= ${lo} AND e.occurred_at < ${hi}`,
       )}) AS e
     ) AS b
     WHERE b.events IS NOT NULL
     GROUP BY 1`,
    values: params.values,
  };
}

/**
 * Page views that reported a time on page (`timed`) and its sum (`total_ms`) per value (`key`) of
 * the session attribute column `column`, over the events of the sessions the filter matches.
 */
export function timedPageViewsSql(
  plan: SegmentPlan,
  funnelId: string,
  column: string,
  filter: SessionFilter,
): Statement {
  const params = new SqlParams();
  const funnel = params.bind(funnelId);
  const eventType = params.bind(EVENT_DIMENSION_TABLE.page.type);
  const join = sessionJoinSql(funnel, filter, params, isFiltered(filter) ? 'JOIN' : 'LEFT JOIN');
  return {
    text: `SELECT t.key, sum(t.timed) AS timed, sum(t.total_ms) AS total_ms
     FROM (
       SELECT k.segment_key AS key, k.sign * (k.value ->> 1)::bigint AS timed, k.sign * (k.value ->> 2)::bigint AS total_ms
       FROM ${cellsOf(
         segmentRollupRows(plan, funnel, filter, params, `r.${column}, r.events`),
         `r.events -> ${params.bind('page')}`,
         [
           [`r.${column}`, 'segment_key'],
           ['s.sign', 'sign'],
         ],
       )}
       UNION ALL
       SELECT e.key, e.sign, e.sign * e.time_on_page_ms
       FROM (${pieceScans(
         plan.raw,
         params,
         (
           lo,
           hi,
           sign,
         ) => `SELECT ${sign} AS sign, m.${column} AS key, e.time_on_page_ms FROM metric_events e ${join}
           WHERE e.funnel_id = ${funnel} AND e.type = ${eventType} AND e.time_on_page_ms IS NOT NULL
             AND e.occurred_at >= ${lo} AND e.occurred_at < ${hi}`,
       )}) AS e
     ) AS t
     GROUP BY 1`,
    values: params.values,
  };
}

/**
 * The events of a dimension counted from events, as rows (sign, key, button_label,
 * time_on_page_ms, occurred_at), read by the key (funnel, type, time) and from plain columns,
 * never from the json payload. What the dimension does not count reads as NULL ('' for the key).
 * `sessions` (sessionJoinSql) keeps only the events of the sessions a filter matches.
 */
const rawEvents =
  (d: EventDimension, funnel: string, eventType: string, sessions: string) =>
  (lo: string, hi: string, sign: number) =>
    `SELECT ${sign} AS sign, ${d.keyed ? 'e.key' : `''::text AS key`},
            ${d.labelled ? 'e.button_label' : 'NULL::text AS button_label'},
            ${d.timed ? 'e.time_on_page_ms' : 'NULL::int AS time_on_page_ms'}, e.occurred_at
     FROM metric_events e ${sessions} WHERE e.funnel_id = ${funnel} AND e.type = ${eventType} AND e.occurred_at >= ${lo} AND e.occurred_at < ${hi}`;

/**
 * The statement that sums a dimension counted from events per key (`key`, `events`, `timed`,
 * `total_ms`, `label`, `label_at`) over a plan: the folded segment rollups' whole buckets and the
 * raw events of the rest, of the sessions the filter matches (every event without one).
 */
export function eventSumsSql(
  funnelId: string,
  plan: SegmentPlan,
  dimension: CountedDimensionName,
  filter: SessionFilter,
): Statement {
  const declared: EventDimension = EVENT_DIMENSION_TABLE[dimension];
  const filtered = isFiltered(filter);
  const params = new SqlParams();
  const funnel = params.bind(funnelId);
  const wanted = params.bind(dimension);
  const eventType = params.bind(declared.type);
  const sessions = filtered ? sessionJoinSql(funnel, filter, params) : '';
  const rawScans = pieceScans(plan.raw, params, rawEvents(declared, funnel, eventType, sessions));
  // The latest labelled event of a key `k.key` in [k.inside_lo, k.inside_hi), where a bucket read
  // whole for part of it leaves it (partialLabelKeys): an index scan backwards from that end,
  // which stops at the first match.
  const latestLabel = (k: string) =>
    `SELECT e.button_label, e.occurred_at FROM metric_events e ${sessions}
     WHERE e.funnel_id = ${funnel} AND e.type = ${eventType} AND e.occurred_at >= ${k}.inside_lo AND e.occurred_at < ${k}.inside_hi
       AND e.key = ${k}.key AND e.button_label IS NOT NULL
     ORDER BY e.occurred_at DESC, e.button_label COLLATE "C" DESC LIMIT 1`;
  const partial = declared.labelled ? partialLabelKeys(plan, funnel, filter, params, wanted) : null;
  return {
    text: `SELECT raw.key, raw.events, raw.timed, raw.total_ms,
            -- The label of the latest labelled click: one probe of the key at that time.
            (SELECT max(x.button_label COLLATE "C") FROM metric_events x
             ${filtered ? sessionJoinSql(funnel, filter, params, 'JOIN', 'x') : ''}
             WHERE x.funnel_id = ${funnel} AND x.type = ${eventType} AND x.occurred_at = raw.label_at AND x.key = raw.key
               AND x.button_label IS NOT NULL) AS label,
            raw.label_at
     FROM (
       SELECT e.key, sum(e.sign) AS events, sum(e.sign) FILTER (WHERE e.time_on_page_ms IS NOT NULL) AS timed,
              coalesce(sum(e.sign * e.time_on_page_ms), 0) AS total_ms,
              max(e.occurred_at) FILTER (WHERE e.button_label IS NOT NULL AND e.sign > 0) AS label_at
       FROM (${rawScans}) AS e
       GROUP BY e.key
     ) AS raw
     UNION ALL ${segmentEventSums(plan, funnel, filter, params, wanted)}
     ${partial ? `UNION ALL SELECT p.key, 0, 0, 0, l.button_label, l.occurred_at FROM ${partial} CROSS JOIN LATERAL (${latestLabel('p')}) AS l` : ''}`,
    values: params.values,
  };
}

/**
 * The statement that counts the messages sent in the window that were delivered and opened
 * (`delivered`, `opened`): the message rollups' whole buckets, and the edges shorter than their
 * finest bucket from the messages themselves.
 */
export function messagesSql(funnelId: string, window: MetricWindow): Statement {
  const cover = coverWindow(window.from, window.to + 1, MESSAGE_GRAINS);
  const params = new SqlParams();
  const funnel = params.bind(funnelId);
  const inSegments = segments(cover, params);
  const raw = (lo: string, hi: string) =>
    `SELECT m.delivered_at, m.opened_at FROM ${CONTACT_MESSAGES_SQL.sentIn(funnel, lo, hi)} AS c
     JOIN metric_messages m ON m.funnel_id = ${funnel} AND m.message_id = c.id`;
  return {
    text: `WITH r AS (
       SELECT r.key, r.events FROM ${inSegments} CROSS JOIN LATERAL (
         SELECT r.key, r.events FROM metric_event_rollups r
         WHERE r.funnel_id = ${funnel} AND r.dimension = '${MESSAGE_DIMENSION}'
           AND ${IN_SEGMENT} OFFSET 0
       ) AS r
     ), m AS (
       ${pieceScans(cover.raw, params, raw)}
     )
     SELECT (SELECT coalesce(sum(r.events) FILTER (WHERE r.key = '${MESSAGE_KEYS.delivered}'), 0) FROM r) +
            (SELECT count(*) FILTER (WHERE m.delivered_at IS NOT NULL OR m.opened_at IS NOT NULL) FROM m) AS delivered,
            (SELECT coalesce(sum(r.events) FILTER (WHERE r.key = '${MESSAGE_KEYS.opened}'), 0) FROM r) +
            (SELECT count(*) FILTER (WHERE m.opened_at IS NOT NULL) FROM m) AS opened`,
    values: params.values,
  };
}
