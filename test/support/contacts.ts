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

/** Bulk contacts by set-based SQL (each with a `blob` property of `filler` characters). */
export async function seedBulkContacts(
  ds: Pick<DataSource, 'query'>,
  tenant: TenantFixture,
  count: number,
  filler = 0,
): Promise<void> {
  await ds.query(
    `INSERT INTO contacts (funnel_id, company_id, status, email, first_name, properties, created_at)
     SELECT $1, $2, 'lead', 'bulk' || n || '@example.com', 'Bulk', jsonb_build_object('blob', repeat('x', $4::int)),
            now() - interval '1 day' + n * interval '1 ms'
     FROM generate_series(1, $3::int) n`,
    [tenant.funnelId, tenant.companyId, count, filler],
  );
}
