import {
  CountedDimensionName,
  countedDimension,
  MESSAGE_KEYS,
  MessageDimensionName,
} from '../events/event-definitions';
import { isFiltered, SessionFilter } from '../query/metric-query';
import { partialLabelKeys, segmentEventSums } from '../segments/segment-sql';
import type { SegmentPlan } from '../segments/segment-state';
import { SqlParams } from '../sql/sql-params';
import type { Cover } from '../time/time-cover';
import type { OffsetPeriod } from '../time/time-zone';
import { offsetAtSql } from '../time/zone-sql';
import { pieceScans, segmentRows, segments } from './cover-sql';
import { minuteOf, SLOT } from './filtered-event-sql';
import type { Statement } from './filtered-event-sql';
import { rawEventCount, rawEvents, rawMessages } from './raw-events';
import { sessionJoinSql } from './session-filter-sql';

/**
 * The statement that sums a dimension counted from events per key (`key`, `events`, `timed`,
 * `total_ms`, `label`, `label_at`): the event rollups' whole buckets of `cover` (eventsPlan) and its
 * raw edges; with a plan (a filter), the folded segment rollups and the raw events of the rest
 * (`cover` then rawPartOf the plan), of the sessions the filter matches.
 */
export function eventSumsSql(
  funnelId: string,
  cover: Cover,
  dimension: CountedDimensionName,
  filter: SessionFilter,
  plan?: SegmentPlan,
): Statement {
  const declared = countedDimension(dimension);
  const filtered = isFiltered(filter);
  const params = new SqlParams();
  const funnel = params.bind(funnelId);
  const inSegments = segments(cover, params);
  const wanted = params.bind(dimension);
  const eventType = params.bind(declared.type);
  const sessions = filtered ? sessionJoinSql(funnel, filter, params) : '';
  const rawScans = pieceScans(cover.raw, params, rawEvents(declared, funnel, eventType, sessions));
  // The latest labelled event of a key `k.key` in [k.inside_lo, k.inside_hi): an index scan
  // backwards from that end, which stops at the first match.
  const latestLabel = (k: string) =>
    `SELECT e.button_label, e.occurred_at FROM metric_events e ${sessions}
     WHERE e.funnel_id = ${funnel} AND e.type = ${eventType} AND e.occurred_at >= ${k}.inside_lo AND e.occurred_at < ${k}.inside_hi
       AND e.key = ${k}.key AND e.button_label IS NOT NULL
     ORDER BY e.occurred_at DESC, e.button_label COLLATE "C" DESC LIMIT 1`;
  const partial = plan && declared.labelled ? partialLabelKeys(plan, funnel, filter, params, wanted) : null;
  // The latest label of the window: the latest of the buckets' latest labels, where a bucket's
  // label counts only when it lies inside the window. A bucket read whole whose latest label lies
  // after the window's end (`inside_hi`) falls back to the latest labelled click inside it: an
  // index scan backwards from that end, which stops at the first match. Raw rows: rawEvents.
  return {
    text: `WITH r AS (
       SELECT r.key, s.sign * r.events AS events, s.sign * r.timed AS timed, s.sign * r.total_ms AS total_ms,
              r.label, r.label_at, s.inside_lo, s.inside_hi, s.sign
       FROM ${segmentRows(inSegments, 'metric_event_rollups', funnel, `= ${wanted}`)}
     )
     SELECT r.key, sum(r.events) AS events, sum(r.timed) AS timed, sum(r.total_ms) AS total_ms,
            (array_agg(r.label ORDER BY r.label_at DESC, r.label COLLATE "C" DESC)
              FILTER (WHERE r.label_at >= r.inside_lo AND r.label_at < r.inside_hi))[1] AS label,
            max(r.label_at) FILTER (WHERE r.label_at >= r.inside_lo AND r.label_at < r.inside_hi) AS label_at
     FROM r GROUP BY r.key
     UNION ALL
     SELECT r.key, 0, 0, 0, l.button_label, l.occurred_at
     FROM r CROSS JOIN LATERAL (${latestLabel('r')}) AS l
     WHERE r.label_at >= r.inside_hi AND r.sign > 0
     UNION ALL
     SELECT raw.key, raw.events, raw.timed, raw.total_ms,
            -- The label of the latest labelled click: one probe of the key at that time.
            (SELECT max(x.button_label COLLATE "C") FROM metric_events x
             ${filtered ? sessionJoinSql(funnel, filter, params, 'JOIN', 'x') : ''}
             WHERE x.funnel_id = ${funnel} AND x.type = ${eventType} AND x.occurred_at = raw.label_at AND x.key = raw.key
               AND x.button_label IS NOT NULL),
            raw.label_at
     FROM (
       SELECT e.key, sum(e.sign) AS events, sum(e.sign) FILTER (WHERE e.time_on_page_ms IS NOT NULL) AS timed,
              coalesce(sum(e.sign * e.time_on_page_ms), 0) AS total_ms,
              max(e.occurred_at) FILTER (WHERE e.button_label IS NOT NULL AND e.sign > 0) AS label_at
       FROM (${rawScans}) AS e
       GROUP BY e.key
     ) AS raw
     ${plan ? `UNION ALL ${segmentEventSums(plan, funnel, filter, params, wanted)}` : ''}
     ${partial ? `UNION ALL SELECT p.key, 0, 0, 0, l.button_label, l.occurred_at FROM ${partial} CROSS JOIN LATERAL (${latestLabel('p')}) AS l` : ''}`,
    values: params.values,
  };
}

/**
 * The statement that counts the events of a dimension (page views: `activity`) per local
 * weekday-hour slot (`slot`, `events`): the event rollups' whole buckets of `cover` (activityPlan,
 * buckets that fit the local hours of `periods`) and its raw edges.
 */
export function activitySql(
  funnelId: string,
  cover: Cover,
  periods: OffsetPeriod[],
  dimension: CountedDimensionName,
): Statement {
  // A raw piece lies within one finest bucket, hence within one local hour: its minute gives the
  // slot, and its events are counted where they are (one row per piece).
  const params = new SqlParams();
  const funnel = params.bind(funnelId);
  const inSegments = segments(cover, params);
  const wanted = params.bind(dimension);
  const offsetAt = offsetAtSql(periods, params);
  // Local hours since the epoch of a time given in minutes since the epoch.
  const localHour = (minutes: string) => `(${minutes} - ${offsetAt(minutes)}) / 60`;
  const rawCount = rawEventCount(countedDimension(dimension), funnel, (lo) => localHour(minuteOf(lo)));
  return {
    text: `SELECT ${SLOT} AS slot, sum(b.events) AS events
       FROM (
         SELECT ${localHour('extract(epoch FROM r.bucket)::bigint / 60')} AS h, s.sign * r.events AS events
         FROM ${segmentRows(inSegments, 'metric_event_rollups', funnel, `= ${wanted}`, 'r.bucket, r.events, r.grain')}
         UNION ALL
         ${pieceScans(cover.raw, params, rawCount)}
       ) AS b
       GROUP BY 1`,
    values: params.values,
  };
}

/**
 * The statement that counts the messages sent in the window that were delivered and opened
 * (`delivered`, `opened`): the rollups' buckets of `cover` (messagesPlan) and its raw edges.
 */
export function messagesSql(funnelId: string, cover: Cover, dimension: MessageDimensionName): Statement {
  const params = new SqlParams();
  const funnel = params.bind(funnelId);
  const inSegments = segments(cover, params);
  const wanted = params.bind(dimension);
  return {
    text: `WITH r AS (
       SELECT r.key, r.events FROM ${segmentRows(inSegments, 'metric_event_rollups', funnel, `= ${wanted}`, 'r.key, r.events')}
     ), m AS (
       ${pieceScans(cover.raw, params, rawMessages(funnel))}
     )
     SELECT (SELECT coalesce(sum(r.events) FILTER (WHERE r.key = '${MESSAGE_KEYS.delivered}'), 0) FROM r) +
            (SELECT count(*) FILTER (WHERE m.delivered_at IS NOT NULL OR m.opened_at IS NOT NULL) FROM m) AS delivered,
            (SELECT coalesce(sum(r.events) FILTER (WHERE r.key = '${MESSAGE_KEYS.opened}'), 0) FROM r) +
            (SELECT count(*) FILTER (WHERE m.opened_at IS NOT NULL) FROM m) AS opened`,
    values: params.values,
  };
}
