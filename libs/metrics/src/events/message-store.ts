import { CONTACT_MESSAGES_SQL } from '@app/contacts';
import { at, iso } from '../sql/epoch';
import { bucketStart, MESSAGE_GRAINS } from '../time/buckets';
import { MESSAGE_DIMENSION, MESSAGE_KEYS } from './event-definitions';
import type { Sql } from './event-store';
import type { MessageFields, TrackedEvent } from './event-types';

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/** A contact message that became delivered and/or opened, at its send time (epoch ms). */
interface MessageChange {
  sentAt: number;
  delivered: boolean;
  opened: boolean;
}

/**
 * The message rollup rows (dimension `message`) the changes add to, at every grain: the messages
 * that became delivered and opened per bucket of their send time, as `[grain, bucket, key, count]`
 * columns.
 */
function messageRollups(changes: MessageChange[]): [number[], number[], string[], number[]] {
  const rows = new Map<string, { grain: number; bucket: number; key: string; count: number }>();
  for (const c of changes)
    for (const grain of MESSAGE_GRAINS)
      for (const key of [c.delivered && MESSAGE_KEYS.delivered, c.opened && MESSAGE_KEYS.opened]) {
        if (!key) continue;
        const bucket = bucketStart(c.sentAt, grain);
        const id = `${grain} ${bucket} ${key}`;
        const row = rows.get(id) ?? { grain, bucket, key, count: 0 };
        row.count += 1;
        rows.set(id, row);
      }
  const all = [...rows.values()];
  return [all.map((r) => r.grain), all.map((r) => r.bucket), all.map((r) => r.key), all.map((r) => r.count)];
}

/**
 * Saves the deliveries and openings ($2: message ids, $3, $4: their first delivery and opening)
 * and adds the rollup increments of the messages that became delivered or opened ($5–$8: grain,
 * bucket, key, count; messageRollups) in one statement.
 */
export const SAVE_MESSAGES_SQL = `WITH saved AS (
     INSERT INTO metric_messages AS m (funnel_id, message_id, delivered_at, opened_at)
     SELECT $1, v.* FROM unnest($2::uuid[], $3::timestamptz[], $4::timestamptz[]) AS v(message_id, delivered_at, opened_at)
     ON CONFLICT (funnel_id, message_id) DO UPDATE SET
       delivered_at = LEAST(m.delivered_at, EXCLUDED.delivered_at),
       opened_at = LEAST(m.opened_at, EXCLUDED.opened_at)
   )
   INSERT INTO metric_event_rollups AS r (funnel_id, dimension, grain, bucket, key, events)
   SELECT $1, '${MESSAGE_DIMENSION}', v.grain, ${at('v.bucket')}, v.key, v.events
   FROM unnest($5::int[], $6::bigint[], $7::text[], $8::int[]) AS v(grain, bucket, key, events)
   ON CONFLICT (funnel_id, dimension, grain, bucket, key) DO UPDATE SET events = r.events + EXCLUDED.events`;

/**
 * Keeps the first delivery and the first opening of each message, and counts the messages that
 * became delivered or opened at their send time (contact_messages.created_at) in the message
 * rollups (metric_event_rollups), which keep counting them after their contact is erased. An
 * opening implies a delivery. Events for a message that is not a contact message of this funnel
 * are kept but counted nowhere.
 */
export async function saveMessages(sql: Sql, funnelId: string, events: TrackedEvent[]): Promise<void> {
  const reported = new Map<string, { delivered: number | null; opened: number | null }>();
  for (const e of events) {
    if (e.type !== 'message_delivered' && e.type !== 'message_opened') continue;
    const id = (e.fields as MessageFields).messageId;
    const m = reported.get(id) ?? { delivered: null, opened: null };
    const field = e.type === 'message_delivered' ? 'delivered' : 'opened';
    m[field] = m[field] === null ? e.occurredAt : Math.min(m[field] as number, e.occurredAt);
    reported.set(id, m);
  }
  if (!reported.size) return;
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
  const changes: MessageChange[] = [];
  for (const k of known) {
    const now = reported.get(k.id) as { delivered: number | null; opened: number | null };
    const wasOpened = k.opened_at !== null;
    const wasDelivered = k.delivered_at !== null || wasOpened;
    const opened = !wasOpened && now.opened !== null;
    const delivered = !wasDelivered && (now.delivered !== null || now.opened !== null);
    if (opened || delivered) changes.push({ sentAt: k.sent_at.getTime(), delivered, opened });
  }
  const rollups = messageRollups(changes);
  await sql('metrics_save_messages', SAVE_MESSAGES_SQL, [
    funnelId,
    ids,
    ids.map((id) => isoOrNull(reported.get(id)?.delivered ?? null)),
    ids.map((id) => isoOrNull(reported.get(id)?.opened ?? null)),
    ...rollups,
  ]);
}
