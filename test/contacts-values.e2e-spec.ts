import { DataSource } from 'typeorm';
import type { ContactView } from '@app/contacts';
import { ContactFieldValue } from '@app/contacts';
import { FunnelsService } from '@app/workspaces';
import type { TestApp } from './support/app';
import { insertContacts, insertMessage } from './support/contacts';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { RecordingTrigger, startAppWithRecordingTrigger } from './support/recording-trigger';

describe('GET and PUT /v1/funnels/{funnelId}/contacts/{contactId}', () => {
  let t: TestApp & { trigger: RecordingTrigger };
  let acme: TenantFixture;
  let api: ReturnType<typeof httpClient>;
  let contactsPath: string;

  beforeAll(async () => {
    t = await startAppWithRecordingTrigger();
    acme = await createTenant(t.app, { contactStatuses: ['lead', 'qualified', 'converted'] });
    api = httpClient(t.baseUrl, acme.key);
    contactsPath = `/v1/funnels/${acme.funnelId}/contacts`;
  });
  afterAll(() => t.close());

  const newContact = async (body: Record<string, unknown> = { email: 'ada@example.com' }) =>
    (await api.post(contactsPath, { skipAutomationTrigger: true, ...body })).body.data.id as string;
  const put = (contactId: string, body: unknown) => api.put(`${contactsPath}/${contactId}/values`, body);
  const read = async (contactId: string) => (await api.get(`${contactsPath}/${contactId}`)).body.data;

  describe('GET', () => {
    it('answers the contact with its messages', async () => {
      const [contact] = await insertContacts(t.app, acme, [{ phone: '+4930123456', firstName: 'Grace' }]);
      await insertMessage(t.app, contact, { name: 'Reminder', type: 'sms', content: 'See you at 10' });
      const res = await api.get(`${contactsPath}/${contact.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: {
          id: contact.id,
          status: 'lead',
          phone: '+4930123456',
          firstName: 'Grace',
          createdAt: contact.createdAt.toISOString(),
          updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          messages: [
            {
              id: expect.any(String),
              name: 'Reminder',
              type: 'sms',
              content: 'See you at 10',
              status: 'recorded',
              clicks: 0,
            },
          ],
        },
      });
      // The message recorded after the contact is a change of it.
      expect(Date.parse(res.body.data.updatedAt)).toBeGreaterThan(contact.createdAt.getTime());
    });

    it('answers 400 when contactId is not a UUID', async () => {
      const res = await api.get(`${contactsPath}/42`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'contactId must be a UUID',
        status: 400,
        details: ['contactId must be a UUID'],
      });
    });

    it('answers 400 naming both ids when neither is a UUID', async () => {
      const res = await api.get('/v1/funnels/abc/contacts/def');
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual(['funnelId must be a UUID', 'contactId must be a UUID']);
    });

    it('answers 404 for an unknown contact', async () => {
      const res = await api.get(`${contactsPath}/7b0a6a4e-61b3-4f7c-9a56-0f6a0f1d2c3b`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Contact not found', status: 404 });
    });

    it('answers 404 for a contact of another funnel of the same company', async () => {
      const id = await newContact();
      const second = await t.app
        .get(FunnelsService)
        .create({ workspaceId: acme.workspaceId, name: 'Second' });
      const res = await api.get(`/v1/funnels/${second.id}/contacts/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('Contact not found');
    });
  });

  describe('PUT .../values', () => {
    it('writes a standard field and answers the recorded value', async () => {
      const id = await newContact();
      const res = await put(id, { fieldName: 'firstName', value: ' Ada ' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: { id: expect.any(String), fieldName: 'firstName', value: 'Ada', updatedAt: expect.any(String) },
      });
      const contact = await read(id);
      expect(contact.firstName).toBe('Ada');
      expect(contact.meta.ps_user_edited_at).toBe(res.body.data.updatedAt);

      const record = await t.app
        .get(DataSource)
        .manager.findOneByOrFail(ContactFieldValue, { id: res.body.data.id });
      expect(record).toMatchObject({ contactId: id, fieldName: 'firstName', value: 'Ada' });
      expect(record.createdAt.toISOString()).toBe(res.body.data.updatedAt);
    });

    it.each([
      ['lastName', 'Lovelace', (c: ContactView) => c.lastName],
      ['email', 'ada@lovelace.example', (c: ContactView) => c.email],
      ['phone', '+44 20 7946 0958', (c: ContactView) => c.phone],
      ['website', 'https://lovelace.example', (c: ContactView) => c.website],
      ['birthday', '1815-12-10', (c: ContactView) => c.birthday],
      ['postalCode', 'W1', (c: ContactView) => c.address?.postalCode],
      ['city', 'London', (c: ContactView) => c.address?.city],
      ['state', 'England', (c: ContactView) => c.address?.state],
      ['country', 'United Kingdom', (c: ContactView) => c.address?.country],
      ['street', 'St James Square', (c: ContactView) => c.address?.street],
      ['houseNumber', '12', (c: ContactView) => c.address?.houseNumber],
      ['status', 'qualified', (c: ContactView) => c.status],
    ])('writes %s', async (fieldName, value, pick) => {
      const id = await newContact();
      const res = await put(id, { fieldName, value });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ fieldName, value });
      expect(pick(await read(id))).toBe(value);
    });

    it('stores zip as postalCode', async () => {
      const id = await newContact();
      const res = await put(id, { fieldName: 'zip', value: '10115' });
      expect(res.body.data).toMatchObject({ fieldName: 'postalCode', value: '10115' });
      expect((await read(id)).address).toEqual({ postalCode: '10115' });
    });

    it('matches standard names whatever their case', async () => {
      const id = await newContact();
      expect((await put(id, { fieldName: 'FirstName', value: 'Ada' })).body.data.fieldName).toBe('firstName');
      const contact = await read(id);
      expect(contact.firstName).toBe('Ada');
      expect(contact).not.toHaveProperty('properties');
    });

    it('stores any other name as a custom property', async () => {
      const id = await newContact();
      expect((await put(id, { fieldName: 'plan', value: 'gold' })).status).toBe(200);
      expect((await put(id, { fieldName: 'lead.score_v-2', value: '17' })).status).toBe(200);
      expect((await put(id, { fieldName: 'plan', value: 'platinum' })).status).toBe(200);
      expect((await read(id)).properties).toEqual({ plan: 'platinum', 'lead.score_v-2': '17' });
    });

    it('clears a standard field with an empty value', async () => {
      const id = await newContact({ email: 'ada@example.com', firstName: 'Ada', phone: '+4930123456' });
      expect((await put(id, { fieldName: 'firstName', value: '' })).status).toBe(200);
      expect((await put(id, { fieldName: 'email', value: '' })).status).toBe(200);
      const contact = await read(id);
      expect(contact).not.toHaveProperty('firstName');
      expect(contact).not.toHaveProperty('email');
    });

    it('keeps every change as its own record', async () => {
      const id = await newContact();
      const first = await put(id, { fieldName: 'city', value: 'Paris' });
      const second = await put(id, { fieldName: 'city', value: 'Rome' });
      expect(first.body.data.id).not.toBe(second.body.data.id);
      const records = await t.app
        .get(DataSource)
        .manager.find(ContactFieldValue, { where: { contactId: id }, order: { createdAt: 'ASC' } });
      expect(records.map((r) => [r.fieldName, r.value])).toEqual([
        ['city', 'Paris'],
        ['city', 'Rome'],
      ]);
    });

    describe('records field.changed for automations', () => {
      it('inside the transaction, with the previous and new value', async () => {
        const id = await newContact();
        const calls = t.trigger.calls.length;
        const res = await put(id, { fieldName: 'status', value: 'converted' });
        expect(t.trigger.calls).toHaveLength(calls + 1);
        expect(t.trigger.calls[calls]).toEqual({
          changes: [
            {
              kind: 'field.changed',
              companyId: acme.companyId,
              funnelId: acme.funnelId,
              contactId: id,
              fieldName: 'status',
              previousValue: 'lead',
              value: 'converted',
              occurredAt: new Date(res.body.data.updatedAt),
            },
          ],
          visibleInTransaction: true,
          visibleOutside: false,
        });
      });

      it('for custom properties and the zip alias under their stored names', async () => {
        const id = await newContact();
        const calls = t.trigger.calls.length;
        await put(id, { fieldName: 'zip', value: '10115' });
        await put(id, { fieldName: 'plan', value: 'gold' });
        expect(t.trigger.calls.slice(calls).map((c) => c.changes[0])).toMatchObject([
          { fieldName: 'postalCode', previousValue: null, value: '10115' },
          { fieldName: 'plan', previousValue: null, value: 'gold' },
        ]);
      });

      it('not when skipAutomationTrigger is true', async () => {
        const id = await newContact();
        const calls = t.trigger.calls.length;
        expect(
          (await put(id, { fieldName: 'status', value: 'qualified', skipAutomationTrigger: true })).status,
        ).toBe(200);
        expect(t.trigger.calls).toHaveLength(calls);
      });

      it('not when the value does not change', async () => {
        const id = await newContact();
        const calls = t.trigger.calls.length;
        expect((await put(id, { fieldName: 'status', value: 'lead' })).status).toBe(200);
        expect(t.trigger.calls).toHaveLength(calls);
      });

      it('and changes nothing when recording fails', async () => {
        const id = await newContact();
        t.trigger.failNext = true;
        expect((await put(id, { fieldName: 'status', value: 'converted' })).status).toBe(500);
        const contact = await read(id);
        expect(contact.status).toBe('lead');
        expect(contact.meta).not.toHaveProperty('ps_user_edited_at');
        expect(await t.app.get(DataSource).manager.countBy(ContactFieldValue, { contactId: id })).toBe(0);
      });
    });

    describe('answers 400 and changes nothing', () => {
      const RESERVED = [
        'id',
        'meta',
        'utmParams',
        'properties',
        'messages',
        'address',
        'name',
        'fullAddress',
        'timezone',
        'createdAt',
        'updatedAt',
        'ps_source',
        'ps_converted_at',
        'PS_anything',
        'META',
      ];
      it.each(RESERVED)('for the reserved field %s', async (fieldName) => {
        const id = await newContact();
        const res = await put(id, { fieldName, value: 'x' });
        expect(res.status).toBe(400);
        expect(res.body.error).toBe(
          `fieldName ${fieldName} is a reserved system field and cannot be written`,
        );
        expect(await read(id)).not.toHaveProperty('properties');
      });

      const INVALID: [string, unknown, string][] = [
        ['fieldName is missing', { value: 'x' }, 'fieldName is required'],
        ['fieldName is empty', { fieldName: '', value: 'x' }, 'fieldName is required'],
        ['value is missing', { fieldName: 'city' }, 'value is required'],
        ['value is null', { fieldName: 'city', value: null }, 'value is required'],
        ['value is a number', { fieldName: 'city', value: 5 }, 'value must be a string'],
        ['fieldName is a number', { fieldName: 5, value: 'x' }, 'fieldName must be a string'],
        [
          'skipAutomationTrigger is a string',
          { fieldName: 'city', value: 'x', skipAutomationTrigger: 'no' },
          'skipAutomationTrigger must be a boolean',
        ],
        [
          'an unknown member is sent',
          { fieldName: 'city', value: 'x', force: true },
          'force is not a recognised field',
        ],
        [
          'a custom name has a space',
          { fieldName: 'my field', value: 'x' },
          'fieldName must be a standard field or a custom property name of 1 to 64 letters, digits, _, - or .',
        ],
        [
          'a custom name is longer than 64',
          { fieldName: 'p'.repeat(65), value: 'x' },
          'fieldName must be a standard field or a custom property name of 1 to 64 letters, digits, _, - or .',
        ],
        [
          'the email is invalid',
          { fieldName: 'email', value: 'ada@' },
          'value must be a valid email address (fieldName email)',
        ],
        [
          'the status is not configured',
          { fieldName: 'status', value: 'won' },
          "value must be one of the funnel's statuses: lead, qualified, converted (fieldName status)",
        ],
        [
          'the status is empty',
          { fieldName: 'status', value: '' },
          "value must be one of the funnel's statuses: lead, qualified, converted (fieldName status)",
        ],
        [
          'the website is invalid',
          { fieldName: 'website', value: 'http://' },
          'value must be a URL such as https://example.com (fieldName website)',
        ],
        [
          'the birthday is invalid',
          { fieldName: 'birthday', value: '1815-13-10' },
          'value must be a date in the form YYYY-MM-DD (fieldName birthday)',
        ],
        [
          'a value is too long for its field',
          { fieldName: 'zip', value: '1'.repeat(41) },
          'value must be at most 40 characters (fieldName postalCode)',
        ],
        [
          'a property value is too long',
          { fieldName: 'notes', value: 'n'.repeat(2001) },
          'value must be at most 2000 characters',
        ],
        [
          'the only email would be cleared',
          { fieldName: 'email', value: ' ' },
          'email cannot be cleared: a contact needs an email or a phone',
        ],
      ];
      it.each(INVALID)('when %s', async (_, body, error) => {
        const id = await newContact();
        const before = await read(id);
        const res = await put(id, body);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ error, status: 400 });
        expect(await read(id)).toEqual(before);
        expect(await t.app.get(DataSource).manager.countBy(ContactFieldValue, { contactId: id })).toBe(0);
      });

      it('when a contact already holds 100 custom properties', async () => {
        const [contact] = await insertContacts(t.app, acme, [
          {
            email: 'many@example.com',
            properties: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`p${i}`, i])),
          },
        ]);
        const res = await put(contact.id, { fieldName: 'one_more', value: 'x' });
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('a contact holds at most 100 custom properties');
        expect((await put(contact.id, { fieldName: 'p1', value: 'overwrite' })).status).toBe(200);
      });

      it('when the ids are not UUIDs', async () => {
        const res = await api.put(`${contactsPath}/nope/values`, { fieldName: 'city', value: 'x' });
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('contactId must be a UUID');
      });
    });

    describe('without a lock while no automation can fire', () => {
      it('keeps an email or a phone when both are cleared at once: the later write goes down the locked path', async () => {
        const id = await newContact({ email: 'both@example.com', phone: '+4930100000' });
        const dataSource = t.app.get(DataSource);
        // Another transaction holds the row: both requests read it (email and phone set, so either
        // may be cleared) and wait to write it.
        const holder = dataSource.createQueryRunner();
        await holder.connect();
        await holder.startTransaction();
        await holder.query('SELECT id FROM contacts WHERE id = $1 FOR UPDATE', [id]);
        const answers = Promise.all(
          ['email', 'phone'].map(
            async (fieldName) =>
              (await put(id, { fieldName, value: '', skipAutomationTrigger: true })).status,
          ),
        );
        const waiting = async () =>
          Number(
            (
              await dataSource.query(
                `SELECT count(*) AS n FROM pg_stat_activity
                 WHERE wait_event_type = 'Lock' AND query LIKE '%UPDATE contacts c SET%'`,
              )
            )[0].n,
          );
        const deadline = Date.now() + 60_000;
        while ((await waiting()) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        expect(await waiting()).toBe(2);
        await holder.commitTransaction();
        await holder.release();

        expect((await answers).sort()).toEqual([200, 400]);
        const contact = await read(id);
        expect(Boolean(contact.email) !== Boolean(contact.phone)).toBe(true);
        expect(await dataSource.manager.countBy(ContactFieldValue, { contactId: id })).toBe(1);
      });
    });

    it('answers 404 for an unknown contact', async () => {
      const res = await put('5d7a3c1e-8b2f-4e6a-9c0d-1e2f3a4b5c6d', { fieldName: 'city', value: 'x' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Contact not found', status: 404 });
    });
  });
});
