import { CONTACT_MESSAGES_SQL } from '@app/contacts';
import { EVENT_DIMENSION_TABLE, EventDimensionName } from '../events/event-definitions';
import type { EventFields, EventType, TrackedEvent } from '../events/event-types';
import { millis } from '../sql/epoch';
import {
  eventRollupDeltas,
  MessageChange,
  messageRollupDeltas,
  RollupRow,
  EventCounts,
} from './rollup-deltas';
import { eventRollupUpsertSql, eventRollupValues } from './rollup-rows';
import type { RunSql } from './session-backfill';

// Backfills for a migration that adds an event dimension or a grain. They compute through the
// contributions ingestion uses (rollup-deltas.ts, from the declarations of event-definitions.ts),
// so a backfill writes what ingestion would have written, however the declaration reads.

type EventRow = {
  funnel_id: string;
  type: EventType;
  occurred_at: number;
  at: Date;
  event_id: string;
  payload: EventFields;
};

type MessageRow = { funnel_id: string; message_id: string; sent_at: number | null } & Omit<
  MessageChange,
  'sentAt'
>;

const NO_ID = '00000000-0000-0000-0000-000000000000';

/**
 * Adds the rollup rows of the given declared event dimensions (e.g. 'page', 'message') from what
 * is stored, at every grain: events in primary-key order, messages by funnel and id, a page at a
 * time. The dimensions' rows must not exist yet.
 */
export async function backfillEventDimensions(
  run: RunSql,
  dimensions: EventDimensionName[],
  size = 5000,
): Promise<void> {
  const wanted = new Set<string>(dimensions);
  const types = new Set<EventType>();
  let messages = false;
  for (const name of dimensions) {
    const d = EVENT_DIMENSION_TABLE[name];
    if (d.source === 'events') types.add(d.type);
    else messages = true;
  }
  const add = async (funnelId: string, increments: RollupRow<EventCounts>[]) => {
    const rows = increments.filter((row) => wanted.has(row.dimension));
    if (rows.length) await run(eventRollupUpsertSql('$1::uuid', 2), [funnelId, ...eventRollupValues(rows)]);
  };
  if (types.size) await backfillEvents(run, [...types], size, add);
  if (messages) await backfillMessages(run, size, add);
}

type Add = (funnelId: string, increments: RollupRow<EventCounts>[]) => Promise<void>;

async function backfillEvents(run: RunSql, types: EventType[], size: number, add: Add): Promise<void> {
  let last: unknown[] = [NO_ID, '', new Date(0).toISOString(), NO_ID];
  for (;;) {
    const rows = (await run(
      `SELECT funnel_id, type, ${millis('occurred_at')} AS occurred_at, occurred_at AS at, event_id, payload
       FROM metric_events
       WHERE type = ANY($5::text[]) AND (funnel_id, type, occurred_at, event_id) > ($1::uuid, $2::text, $3::timestamptz, $4::uuid)
       ORDER BY funnel_id, type, occurred_at, event_id LIMIT ${Number(size)}`,
      [...last, types],
    )) as EventRow[];
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
    for (const [funnelId, events] of byFunnel) await add(funnelId, eventRollupDeltas(events));
    const end = rows[rows.length - 1];
    last = [end.funnel_id, end.type, end.at.toISOString(), end.event_id];
  }
}

// Each stored message counts as what became of it since it was sent, at its send time, which
// contacts keep: read through the relation contacts exports, by the page's ids. A message that is
// not a contact message of the funnel counts nowhere, as in ingestion.
async function backfillMessages(run: RunSql, size: number, add: Add): Promise<void> {
  let last = [NO_ID, NO_ID];
  for (;;) {
    const rows = (await run(
      `WITH p AS (
         SELECT funnel_id, message_id, delivered_at, opened_at FROM metric_messages
         WHERE (funnel_id, message_id) > ($1::uuid, $2::uuid) ORDER BY funnel_id, message_id LIMIT ${Number(size)}
       )
       SELECT p.funnel_id, p.message_id, ${millis('c.sent_at')} AS sent_at,
              p.delivered_at IS NOT NULL OR p.opened_at IS NOT NULL AS delivered, p.opened_at IS NOT NULL AS opened
       FROM p LEFT JOIN ${CONTACT_MESSAGES_SQL.byIds('ARRAY(SELECT message_id FROM p)')} AS c
         ON c.id = p.message_id AND c.funnel_id = p.funnel_id
       ORDER BY p.funnel_id, p.message_id`,
      last,
    )) as MessageRow[];
    if (!rows.length) return;
    const byFunnel = new Map<string, MessageChange[]>();
    for (const r of rows) {
      if (r.sent_at === null) continue;
      const change = { sentAt: Number(r.sent_at), delivered: r.delivered, opened: r.opened };
      byFunnel.set(r.funnel_id, [...(byFunnel.get(r.funnel_id) ?? []), change]);
    }
    for (const [funnelId, changes] of byFunnel) await add(funnelId, messageRollupDeltas(changes));
    const end = rows[rows.length - 1];
    last = [end.funnel_id, end.message_id];
  }
}
