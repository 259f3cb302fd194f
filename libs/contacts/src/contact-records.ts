import { EntityManager, In } from 'typeorm';
import { Contact } from './entities/contact.entity';
import { ContactMessage, MessageStatus, MessageType } from './entities/contact-message.entity';

// What automations read and write of the contacts tables, through the manager of the caller's
// transaction: the payload of a run is frozen with the change, a recorded message commits with
// its run's outcome.

// Each names the funnels too, so a change of one funnel reads one shard on Citus.

/** The contacts of these funnels with these ids that exist. */
export function findContactsById(
  manager: EntityManager,
  funnelIds: string[],
  ids: string[],
): Promise<Contact[]> {
  return ids.length
    ? manager.find(Contact, { where: { funnelId: In(funnelIds), id: In(ids) } })
    : Promise.resolve([]);
}

/** The messages of these contacts of these funnels, oldest first (the order of a contact's `messages`). */
export function findMessagesOf(
  manager: EntityManager,
  funnelIds: string[],
  contactIds: string[],
): Promise<ContactMessage[]> {
  return contactIds.length
    ? manager.find(ContactMessage, {
        where: { funnelId: In(funnelIds), contactId: In(contactIds) },
        order: { createdAt: 'ASC', id: 'ASC' },
      })
    : Promise.resolve([]);
}

export interface NewContactMessage {
  /** Given when the sender already named the message (an email's id is its run's). */
  id?: string;
  contactId: string;
  funnelId: string;
  name: string;
  type: MessageType;
  subject: string | null;
  content: string;
  /** `recorded` unless a channel took it (then when, and when it was delivered if that is known). */
  status?: MessageStatus;
  sentAt?: Date;
  deliveredAt?: Date;
}

/** Adds messages to their contacts' `messages` (one statement for several). */
export async function insertContactMessage(
  manager: EntityManager,
  message: NewContactMessage | NewContactMessage[],
): Promise<void> {
  await manager.insert(ContactMessage, message);
}
