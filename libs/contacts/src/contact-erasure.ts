import type { EntityManager } from 'typeorm';
import type { AutomationTrigger } from './automation-trigger';
import { Contact } from './entities/contact.entity';
import { forgetResponsesAbout } from './idempotency';

/**
 * Cuts the links to an erased contact from data another domain keeps (metrics: the tracking
 * events that name the contact a conversion came from), inside the erasure's transaction.
 * Contacts owns the port and the domain keeping the data implements it, so contacts depends on
 * no such domain.
 */
export abstract class ContactLinkEraser {
  abstract forgetContact(manager: EntityManager, funnelId: string, contactId: string): Promise<void>;
}

/**
 * Erases a contact (GDPR art. 17) inside the caller's transaction, the contact row locked: its
 * field-value history and messages (foreign-key cascades), the remembered idempotent responses
 * that show it, its automation runs (their payloads hold it) and the link from tracking events.
 * What the metrics count stays: an anonymous row for the conversion and one per message sent,
 * with nothing that leads back to the contact. The funnel's kept total drops by one (trigger).
 */
export async function eraseContact(
  manager: EntityManager,
  contact: Contact,
  automations: AutomationTrigger,
  links: ContactLinkEraser,
): Promise<void> {
  await manager.query('INSERT INTO erased_contacts (funnel_id, converted_at) VALUES ($1, $2)', [
    contact.funnelId,
    contact.convertedAt,
  ]);
  await manager.query(
    `INSERT INTO erased_contact_messages (funnel_id, sent_at)
     SELECT funnel_id, created_at FROM contact_messages WHERE funnel_id = $1 AND contact_id = $2`,
    [contact.funnelId, contact.id],
  );
  await forgetResponsesAbout(manager, contact.companyId, contact.id);
  await automations.forgetContact(manager, contact.funnelId, contact.id);
  await links.forgetContact(manager, contact.funnelId, contact.id);
  await manager.delete(Contact, { funnelId: contact.funnelId, id: contact.id });
}
