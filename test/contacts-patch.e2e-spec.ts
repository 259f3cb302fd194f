import { DataSource } from 'typeorm';
import { ContactFieldValue } from '@app/contacts';
import type { TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { RecordingTrigger, startAppWithRecordingTrigger } from './support/recording-trigger';

describe('PATCH /v1/funnels/{funnelId}/contacts/{contactId}', () => {
  let t: TestApp & { trigger: RecordingTrigger };
  let acme: TenantFixture;
  let api: ReturnType<typeof httpClient>;
  let contactsPath: string;

  beforeAll(async () => {
    t = await startAppWithRecordingTrigger();
    acme = await createTenant(t.app, { contactStatuses: ['lead', 'qualified', 'converted'] });
    api = httpClient(t.baseUrl, acme.key);
    contactsPath = `/v1/funnels/${acme.funnelId}/contacts`;
    await api.post(`/v1/funnels/${acme.funnelId}/properties`, { name: 'score', type: 'number' });
  });
  afterAll(() => t.close());

  const newContact = async (body: Record<string, unknown> = { email: 'ada@example.com' }) =>
    (await api.post(contactsPath, { skipAutomationTrigger: true, ...body })).body.data.id as string;
  const patch = (id: string, body: unknown) => api.send('PATCH', `${contactsPath}/${id}`, body);
  const read = async (id: string) => (await api.get(`${contactsPath}/${id}`)).body.data;
  const history = (contactId: string) =>
    t.app
      .get(DataSource)
      .manager.find(ContactFieldValue, { where: { contactId }, order: { fieldName: 'ASC' } });

  it('changes many fields at once and answers the updated contact', async () => {
    const id = await newContact({ email: 'ada@example.com', firstName: 'Ada', address: { city: 'London' } });
    await api.put(`${contactsPath}/${id}/values`, { fieldName: 'plan', value: 'free' });
    const res = await patch(id, {
      status: 'qualified',
      lastName: 'Lovelace',
      phone: '+44 20 7946 0000',
      address: { postalCode: 'NW1', country: 'UK' },
      properties: { score: '12', plan: null, source: 'fair' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id,
      status: 'qualified',
      email: 'ada@example.com',
      phone: '+44 20 7946 0000',
      firstName: 'Ada',
      lastName: 'Lovelace',
      address: { city: 'London', postalCode: 'NW1', country: 'UK' },
      properties: { score: 12, source: 'fair' },
      messages: [],
    });
    expect(res.body.data.meta.ps_user_edited_at).toEqual(expect.any(String));
    expect(await read(id)).toEqual(res.body.data);
    // Each changed field is kept in the history, as PUT …/values keeps it.
    const kept = (await history(id)).map((r) => [r.fieldName, r.value]);
    expect(kept).toEqual(
      expect.arrayContaining([
        ['status', 'qualified'],
        ['lastName', 'Lovelace'],
        ['postalCode', 'NW1'],
        ['score', '12'],
        ['plan', ''],
        ['source', 'fair'],
      ]),
    );
  });

  it('offers each changed field to automations, in the transaction, and nothing for an unchanged one', async () => {
    const id = await newContact({ email: 'auto@example.com', firstName: 'Grace' });
    t.trigger.calls.length = 0;
    const res = await patch(id, {
      firstName: 'Grace',
      status: 'converted',
      city: undefined,
      website: 'grace.example.com',
    });
    expect(res.status).toBe(200);
    expect(t.trigger.calls).toHaveLength(1);
    const [call] = t.trigger.calls;
    expect(call.visibleInTransaction).toBe(true);
    expect(call.visibleOutside).toBe(false);
    expect(call.changes.map((c) => [c.kind, c.fieldName, c.previousValue, c.value])).toEqual([
      ['field.changed', 'status', 'lead', 'converted'],
      ['field.changed', 'website', null, 'grace.example.com'],
    ]);

    t.trigger.calls.length = 0;
    await patch(id, { status: 'lead', skipAutomationTrigger: true });
    expect(t.trigger.calls).toHaveLength(0);
  });

  it('rolls the whole change back when the automations cannot be recorded', async () => {
    const id = await newContact({ email: 'rollback@example.com' });
    t.trigger.failNext = true;
    const res = await patch(id, { firstName: 'Never', status: 'converted' });
    expect(res.status).toBe(500);
    expect(await read(id)).toMatchObject({ status: 'lead' });
    expect((await read(id)).firstName).toBeUndefined();
  });

  it.each([
    [{ email: 'not-an-email', firstName: 'X' }, 'email must be a valid email address'],
    [
      { status: 'won', firstName: 'X' },
      "status must be one of the funnel's statuses: lead, qualified, converted",
    ],
    [{ status: null }, "status must be one of the funnel's statuses: lead, qualified, converted"],
    [{ email: null, firstName: 'X' }, 'email cannot be cleared: a contact needs an email or a phone'],
    [{ properties: { ps_source: 'x' }, firstName: 'X' }, 'properties.ps_source is a reserved system field'],
    [
      { properties: { email: 'x@example.com' } },
      'properties.email is a standard field, not a custom property',
    ],
    [{ properties: { score: 'high' }, firstName: 'X' }, 'properties.score must be a number'],
    [{ nickname: 'Addy', firstName: 'X' }, 'nickname is not a recognised field'],
    [{ meta: { ps_source: 'manual' } }, 'meta is not a recognised field'],
    [{ address: 'London' }, 'address must be an object'],
    [{ birthday: '1815-13-10' }, 'birthday must be a date in the form YYYY-MM-DD'],
    [[{ firstName: 'X' }], 'the request body must be a JSON object'],
  ])('answers 400 for %j and changes nothing', async (body, error) => {
    const id = await newContact({ email: 'bad@example.com', firstName: 'Ada' });
    const before = await read(id);
    const res = await patch(id, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
    expect(await read(id)).toEqual(before);
    expect(await history(id)).toEqual([]);
  });

  it('clears a field with null or an empty string, keeping the other of email and phone', async () => {
    const id = await newContact({
      email: 'clear@example.com',
      phone: '+4930123456',
      website: 'a.example.com',
    });
    const res = await patch(id, { email: null, website: '' });
    expect(res.status).toBe(200);
    expect(res.body.data.email).toBeUndefined();
    expect(res.body.data.website).toBeUndefined();
    expect(res.body.data.phone).toBe('+4930123456');
  });

  it('answers the contact unchanged for an empty change', async () => {
    const id = await newContact({ email: 'same@example.com' });
    const before = await read(id);
    const res = await patch(id, {});
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(before);
  });

  it('answers 404 for an unknown contact and 400 for a contactId that is not a UUID', async () => {
    expect((await patch('7b0a6a4e-61b3-4f7c-9a56-0f6a0f1d2c3b', { firstName: 'X' })).body).toEqual({
      error: 'Contact not found',
      status: 404,
    });
    expect((await patch('42', { firstName: 'X' })).status).toBe(400);
  });

  it('answers 403 to a read-only key and changes nothing', async () => {
    const id = await newContact({ email: 'ro@example.com' });
    const res = await httpClient(t.baseUrl, await acme.keyFor('crm:read')).send(
      'PATCH',
      `${contactsPath}/${id}`,
      {
        firstName: 'X',
      },
    );
    expect(res.status).toBe(403);
    expect((await read(id)).firstName).toBeUndefined();
  });
});
