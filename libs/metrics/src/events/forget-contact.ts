import type { EntityManager } from 'typeorm';

/**
 * Cuts the link from a funnel's tracking events to an erased contact, inside the erasure's
 * transaction: a conversion keeps counting (it stays a conversion of its session) but no longer
 * names the contact. Reads the funnel's conversions through the (funnel, type, time) key.
 */
export async function forgetContactInEvents(
  manager: EntityManager,
  funnelId: string,
  contactId: string,
): Promise<void> {
  await manager.query(
    `UPDATE metric_events SET payload = (payload::jsonb - 'contactId')::json
     WHERE funnel_id = $1 AND type = 'conversion' AND payload ->> 'contactId' = $2`,
    [funnelId, contactId],
  );
}
