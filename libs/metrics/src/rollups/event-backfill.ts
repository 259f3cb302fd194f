import type { EventFields, EventType, TrackedEvent } from '../events/event-types';
import { millis } from '../sql/epoch';
import { EVENT_DIMENSIONS, eventRollupDeltas } from './rollup-deltas';
import { eventRollupRowsJson, eventRollupUpsertSql } from './rollup-rows';
import type { RunSql } from './session-backfill';

// The event types whose rollups are computed from the events alone (messages also need their send
// time, which contacts keep).
const TYPES: EventType[] = ['page_view', 'button_click'];

type Row = {
  funnel_id: string;
  type: EventType;
  occurred_at: number;
  at: Date;
  event_id: string;
  payload: EventFields;
};

/**
 * Adds the rollup rows of the given event dimensions ('activity', 'page', 'button') from the
 * stored events, at every grain, through eventRollupDeltas: what ingestion adds, for a migration
 * that adds an event dimension or a grain. The dimensions' rows must not exist yet. Events are
 * read in primary-key order, a page at a time.
 */
export async function backfillEventDimensions(
  run: RunSql,
  dimensions: (typeof EVENT_DIMENSIONS)[keyof typeof EVENT_DIMENSIONS][],
  size = 5000,
): Promise<void> {
  const wanted = new Set<string>(dimensions);
  let last: unknown[] = [
    '00000000-0000-0000-0000-000000000000',
    '',
    new Date(0).toISOString(),
    '00000000-0000-0000-0000-000000000000',
  ];
  for (;;) {
    const rows = (await run(
      `SELECT funnel_id, type, ${millis('occurred_at')} AS occurred_at, occurred_at AS at, event_id, payload
       FROM metric_events
       WHERE type = ANY($5::text[]) AND (funnel_id, type, occurred_at, event_id) > ($1::uuid, $2::text, $3::timestamptz, $4::uuid)
       ORDER BY funnel_id, type, occurred_at, event_id LIMIT ${Number(size)}`,
      [...last, TYPES],
    )) as Row[];
    if (!rows.length) return;
    const byFunnel = new Map<string, TrackedEvent[]>();
    for (const r of rows) {
      const event = {
        eventId: r.event_id,
        type: r.type,
        sessionId: '',
        occurredAt: Number(r.occurred_at),
        fields: r.payload,
        fieldsJson: '',
      };
      byFunnel.set(r.funnel_id, [...(byFunnel.get(r.funnel_id) ?? []), event]);
    }
    for (const [funnelId, events] of byFunnel) {
      const increments = eventRollupDeltas(events).filter((row) => wanted.has(row.dimension));
      if (increments.length)
        await run(eventRollupUpsertSql('$1::uuid', '$2::json'), [funnelId, eventRollupRowsJson(increments)]);
    }
    const end = rows[rows.length - 1];
    last = [end.funnel_id, end.type, end.at.toISOString(), end.event_id];
  }
}
