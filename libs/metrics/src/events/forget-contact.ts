import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ContactLinkEraser } from '@app/contacts';

/** The ContactLinkEraser of tracking events (contacts' erasure calls it through the port). */
@Injectable()
export class EventContactLinks extends ContactLinkEraser {
  /**
   * Cuts the link from a funnel's tracking events to an erased contact, inside the erasure's
   * transaction: a conversion keeps counting (it stays a conversion of its session) but no longer
   * names the contact. Reads the funnel's conversions through the (funnel, type, time) key.
   */
  async forgetContact(manager: EntityManager, funnelId: string, contactId: string): Promise<void> {
    await manager.query(
      `UPDATE metric_events SET payload = (payload::jsonb - 'contactId')::json
       WHERE funnel_id = $1 AND type = 'conversion' AND payload ->> 'contactId' = $2`,
      [funnelId, contactId],
    );
  }
}
