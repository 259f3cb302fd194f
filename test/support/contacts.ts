import type { INestApplicationContext } from '@nestjs/common';
import { DataSource, DeepPartial } from 'typeorm';
import { Contact, ContactMessage } from '@app/contacts';
import type { TenantFixture } from './factories';

/** Contacts written straight to the database (as the funnel itself would), for list and read tests. */
export async function insertContacts(
  app: INestApplicationContext,
  tenant: Pick<TenantFixture, 'companyId' | 'funnelId'>,
  rows: DeepPartial<Contact>[],
): Promise<Contact[]> {
  const manager = app.get(DataSource).manager;
  return manager.save(
    rows.map((row) =>
      manager.create(Contact, {
        status: 'lead',
        funnelId: tenant.funnelId,
        companyId: tenant.companyId,
        ...row,
      }),
    ),
  );
}

export async function insertMessage(
  app: INestApplicationContext,
  contact: Contact,
  message: Partial<ContactMessage> & { createdAt?: Date },
): Promise<ContactMessage> {
  const manager = app.get(DataSource).manager;
  return manager.save(
    manager.create(ContactMessage, {
      contactId: contact.id,
      funnelId: contact.funnelId,
      name: 'Welcome',
      type: 'email',
      content: 'Hello',
      ...message,
    }),
  );
}
