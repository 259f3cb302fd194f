import { CONTACT_MESSAGES_SQL } from '@app/contacts';
import type { MessageChange } from '../rollups/rollup-deltas';
import type { Sql } from './event-store';
import type { MessageFields, TrackedEvent } from './event-types';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Keeps the first delivery and the first opening of each message, and returns the messages that
 * became delivered or opened with their send time (contact_messages.created_at): the message
 * rollups count them there. An opening implies a delivery. Events for a message that is not a
 * contact message of this funnel are kept but counted nowhere.
 */
export async function saveMessages(
  sql: Sql,
  funnelId: string,
  events: TrackedEvent[],
): Promise<MessageChange[]> {
  const reported = new Map<string, { delivered: number | null; opened: number | null }>();
  for (const e of events) {
    if (e.type !== 'message_delivered' && e.type !== 'message_opened') continue;
    const id = (e.fields as MessageFields).messageId;
    const m = reported.get(id) ?? { delivered: null, opened: null };
    const field = e.type === 'message_delivered' ? 'delivered' : 'opened';
    m[field] = m[field] === null ? e.occurredAt : Math.min(m[field] as number, e.occurredAt);
    reported.set(id, m);
  }
  if (!reported.size) return [];
  const ids = [...reported.keys()];
  const known: { id: string; sent_at: Date; delivered_at: Date | null; opened_at: Date | null }[] = await sql(
    'metrics_read_messages',
    // By primary keys (funnel, id) only, and each message's state is one probe (LATERAL).
    `SELECT c.id, c.sent_at, m.delivered_at, m.opened_at
     FROM ${CONTACT_MESSAGES_SQL.byIds('$1', '$2::uuid[]')} AS c
     LEFT JOIN LATERAL (
       SELECT delivered_at, opened_at FROM metric_messages WHERE funnel_id = $1 AND message_id = c.id LIMIT 1
     ) AS m ON true`,
    [funnelId, ids],
  );
  await sql(
    'metrics_save_messages',
    `INSERT INTO metric_messages AS m (funnel_id, message_id, delivered_at, opened_at)
     SELECT $1, v.* FROM unnest($2::uuid[], $3::timestamptz[], $4::timestamptz[]) AS v(message_id, delivered_at, opened_at)
     ON CONFLICT (funnel_id, message_id) DO UPDATE SET
       delivered_at = LEAST(m.delivered_at, EXCLUDED.delivered_at),
       opened_at = LEAST(m.opened_at, EXCLUDED.opened_at)`,
    [
      funnelId,
      ids,
      ids.map((id) => iso(reported.get(id)?.delivered ?? null)),
      ids.map((id) => iso(reported.get(id)?.opened ?? null)),
    ],
  );
  const changes: MessageChange[] = [];
  for (const k of known) {
    const now = reported.get(k.id) as { delivered: number | null; opened: number | null };
    const wasOpened = k.opened_at !== null;
    const wasDelivered = k.delivered_at !== null || wasOpened;
    const opened = !wasOpened && now.opened !== null;
    const delivered = !wasDelivered && (now.delivered !== null || now.opened !== null);
    if (opened || delivered) changes.push({ sentAt: k.sent_at.getTime(), delivered, opened });
  }
  return changes;
}
