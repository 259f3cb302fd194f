import {
  countedDimension,
  CountedDimensionName,
  MESSAGE_DIMENSION,
  MESSAGE_KEYS,
} from '../events/event-definitions';
import { isFiltered, MetricWindow, SessionFilter } from '../query/metric-query';
import { partialLabelKeys, segmentEventSums } from '../segments/segment-sql';
import type { SegmentPlan } from '../segments/segment-state';
import { SqlParams } from '../sql/sql-params';
import { MESSAGE_GRAINS } from '../time/buckets';
import { coverWindow } from '../time/time-cover';
import { CONTACT_MESSAGES_SQL } from '@app/contacts';
import { pieceScans, segments } from './cover-sql';
import type { Statement } from './filtered-event-sql';
import { rawEvents } from './raw-events';
import { sessionJoinSql } from './session-filter-sql';

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
  const declared = countedDimension(dimension);
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
           AND r.grain = s.grain AND r.bucket >= s.lo AND r.bucket < s.hi OFFSET 0
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
