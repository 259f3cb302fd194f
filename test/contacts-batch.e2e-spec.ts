import { DataSource } from 'typeorm';
import type { TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { RecordingTrigger, startAppWithRecordingTrigger } from './support/recording-trigger';

describe('POST /v1/funnels/{funnelId}/contacts/batch', () => {
  let t: TestApp & { trigger: RecordingTrigger };
  let acme: TenantFixture;
  let globex: TenantFixture;
  let api: ReturnType<typeof httpClient>;
  let contactsPath: string;
  let batchPath: string;

  beforeAll(async () => {
    t = await startAppWithRecordingTrigger();
    [acme, globex] = [await createTenant(t.app), await createTenant(t.app)];
    api = httpClient(t.baseUrl, acme.key);
    contactsPath = `/v1/funnels/${acme.funnelId}/contacts`;
    batchPath = `${contactsPath}/batch`;
    await api.post(`/v1/funnels/${acme.funnelId}/properties`, {
      name: 'externalId',
      type: 'string',
      unique: true,
    });
    await api.post(`/v1/funnels/${acme.funnelId}/properties`, { name: 'score', type: 'number' });
  });
  afterAll(() => t.close());

  const count = async () =>
    Number(
      (
        await t.app
          .get(DataSource)
          .query('SELECT count(*) AS n FROM contacts WHERE funnel_id = $1', [acme.funnelId])
      )[0].n,
    );
  const read = async (id: string) => (await api.get(`${contactsPath}/${id}`)).body.data;

  it('creates every item without upsertBy and answers 200 with their contacts in request order', async () => {
    t.trigger.calls.length = 0;
    const res = await api.post(batchPath, {
      contacts: [
        { email: 'b1@example.com', firstName: 'One', properties: { score: '3' } },
        { phone: '+4930111', address: { city: 'Berlin' } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        index: 0,
        status: 201,
        data: expect.objectContaining({ email: 'b1@example.com', properties: { score: 3 } }),
      },
      {
        index: 1,
        status: 201,
        data: expect.objectContaining({ phone: '+4930111', address: { city: 'Berlin' } }),
      },
    ]);
    expect(res.body.data[0].data.meta.ps_source).toBe('external-api');
    expect(await read(res.body.data[1].data.id)).toEqual(res.body.data[1].data);
    // One contact.created per created contact, recorded in the batch's transaction.
    expect(t.trigger.calls).toHaveLength(1);
    expect(t.trigger.calls[0].visibleInTransaction).toBe(true);
    expect(t.trigger.calls[0].visibleOutside).toBe(false);
    expect(t.trigger.calls[0].changes.map((c) => [c.kind, c.contactId])).toEqual(
      res.body.data.map((d: { data: { id: string } }) => ['contact.created', d.data.id]),
    );
  });

  it('lets a bad item fail alone (207), checked as the single create checks it', async () => {
    const before = await count();
    const res = await api.post(batchPath, {
      contacts: [
        { email: 'good@example.com' },
        { firstName: 'Nobody' },
        { email: 'bad', status: 'won' },
        { email: 'typed@example.com', properties: { score: 'high' } },
        { email: 'meta@example.com', meta: { ps_source: 'manual' } },
        'not an object',
      ],
    });
    expect(res.status).toBe(207);
    expect(res.body.data).toEqual([
      { index: 0, status: 201, data: expect.objectContaining({ email: 'good@example.com' }) },
      { index: 1, status: 400, error: 'email or phone is required' },
      {
        index: 2,
        status: 400,
        error: 'email must be a valid email address',
        details: [
          'email must be a valid email address',
          "status must be one of the funnel's statuses: lead, converted",
        ],
      },
      { index: 3, status: 400, error: 'properties.score must be a number' },
      { index: 4, status: 400, error: 'meta is managed by the service and cannot be set' },
      { index: 5, status: 400, error: 'the contact must be a JSON object' },
    ]);
    expect(await count()).toBe(before + 1);
  });

  it('upserts by email: a match is updated (the members it carries), the rest created', async () => {
    const first = await api.post(batchPath, {
      contacts: [{ email: 'Up1@Example.com', firstName: 'Old', lastName: 'Keep' }],
    });
    const id = first.body.data[0].data.id;
    t.trigger.calls.length = 0;
    const res = await api.post(batchPath, {
      upsertBy: 'email',
      contacts: [
        { email: 'up1@example.com', firstName: 'New', lastName: '' },
        { email: 'up2@example.com', firstName: 'Fresh' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toEqual({
      index: 0,
      status: 200,
      // The key matches whatever its case; the email the item carries is the one kept.
      data: expect.objectContaining({ id, email: 'up1@example.com', firstName: 'New', lastName: 'Keep' }),
    });
    expect(res.body.data[1]).toMatchObject({ index: 1, status: 201, data: { email: 'up2@example.com' } });
    const changes = t.trigger.calls.flatMap((c) => c.changes);
    expect(changes.map((c) => [c.kind, c.fieldName ?? null, c.value ?? null])).toEqual([
      ['field.changed', 'email', 'up1@example.com'],
      ['field.changed', 'firstName', 'New'],
      ['contact.created', null, null],
    ]);
  });

  it('answers an updated contact with its messages, as a read shows it, and records each changed field', async () => {
    const first = await api.post(batchPath, { contacts: [{ email: 'msg1@example.com', firstName: 'Old' }] });
    const id = first.body.data[0].data.id;
    const db = t.app.get(DataSource);
    await db.query(
      `INSERT INTO contact_messages (contact_id, funnel_id, name, type, content) VALUES ($1, $2, 'Welcome', 'email', 'Hi')`,
      [id, acme.funnelId],
    );
    const res = await api.post(batchPath, {
      upsertBy: 'email',
      contacts: [{ email: 'msg1@example.com', firstName: 'New', lastName: 'Last', properties: { score: 7 } }],
    });
    expect(res.status).toBe(200);
    expect(res.body.data[0].data.messages).toEqual([
      expect.objectContaining({ name: 'Welcome', type: 'email', content: 'Hi' }),
    ]);
    expect(res.body.data[0].data).toEqual(await read(id));
    const records = await db.query(
      'SELECT id, field_name, value FROM contact_field_values WHERE contact_id = $1 ORDER BY field_name',
      [id],
    );
    expect(records.map((r: { field_name: string; value: string }) => [r.field_name, r.value])).toEqual([
      ['firstName', 'New'],
      ['lastName', 'Last'],
      ['score', '7'],
    ]);
    expect(new Set(records.map((r: { id: string }) => r.id)).size).toBe(3);
  });

  it('makes items of one batch with the same key one contact', async () => {
    const before = await count();
    const res = await api.post(batchPath, {
      upsertBy: 'email',
      contacts: [
        { email: 'twin@example.com', firstName: 'A' },
        { email: 'TWIN@example.com', lastName: 'B' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { status: number }) => d.status)).toEqual([201, 200]);
    expect(res.body.data[0].data.id).toBe(res.body.data[1].data.id);
    expect(res.body.data[1].data).toMatchObject({ firstName: 'A', lastName: 'B' });
    expect(await count()).toBe(before + 1);
  });

  it('upserts by phone digits and by a unique property', async () => {
    const created = await api.post(batchPath, {
      contacts: [{ phone: '+49 30 222', properties: { externalId: 'ext-1' } }],
    });
    const id = created.body.data[0].data.id;
    const byPhone = await api.post(batchPath, {
      upsertBy: 'phone',
      contacts: [{ phone: '+4930222', firstName: 'P' }],
    });
    expect(byPhone.body.data[0]).toMatchObject({ status: 200, data: { id, firstName: 'P' } });
    const byProperty = await api.post(batchPath, {
      upsertBy: 'externalId',
      contacts: [
        { properties: { externalId: 'ext-1', score: 7 }, lastName: 'Q' },
        { properties: { externalId: 'ext-2' } },
        { email: 'ext3@example.com', properties: { externalId: 'ext-3' } },
      ],
    });
    expect(byProperty.status).toBe(207);
    expect(byProperty.body.data[0]).toMatchObject({
      status: 200,
      data: { id, firstName: 'P', lastName: 'Q', properties: { externalId: 'ext-1', score: 7 } },
    });
    // A new contact needs an email or a phone, as on create.
    expect(byProperty.body.data[1]).toEqual({ index: 1, status: 400, error: 'email or phone is required' });
    expect(byProperty.body.data[2]).toMatchObject({ status: 201 });
  });

  it('refuses an item whose unique value another contact holds (409), the others go on', async () => {
    const res = await api.post(batchPath, {
      contacts: [
        { email: 'dup1@example.com', properties: { externalId: 'ext-3' } },
        { email: 'dup2@example.com', properties: { externalId: 'ext-9' } },
        { email: 'dup3@example.com', properties: { externalId: 'ext-9' } },
      ],
    });
    expect(res.status).toBe(207);
    expect(res.body.data.map((d: { status: number }) => d.status)).toEqual([409, 201, 409]);
    expect(res.body.data[0].error).toBe(
      'properties.externalId is unique: another contact of the funnel already holds this value',
    );
  });

  it.each([
    [{ contacts: 'no' }, 'contacts must be an array of 1 to 100 contacts'],
    [{ contacts: [] }, 'contacts must be an array of 1 to 100 contacts'],
    [
      { contacts: Array.from({ length: 101 }, (_, i) => ({ email: `m${i}@example.com` })) },
      'contacts must be an array of 1 to 100 contacts',
    ],
    [
      { contacts: [{ email: 'x@example.com' }], upsertBy: 'score' },
      'upsertBy must be email, phone or a unique property of the funnel (externalId)',
    ],
    [{ contacts: [{ email: 'x@example.com' }], mode: 'fast' }, 'mode is not a recognised field'],
    [[{ email: 'x@example.com' }], 'the request body must be a JSON object'],
  ])('answers a plain 400 for a malformed envelope %#, writing nothing', async (body, error) => {
    const before = await count();
    const res = await api.post(batchPath, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
    expect(await count()).toBe(before);
  });

  it('answers the first response to a retry with the same Idempotency-Key and writes nothing more', async () => {
    const body = { contacts: [{ email: 'idem@example.com' }, { firstName: 'bad' }] };
    const first = await api.post(batchPath, body, { 'idempotency-key': 'batch-1' });
    const before = await count();
    const again = await api.post(batchPath, body, { 'idempotency-key': 'batch-1' });
    expect(again.status).toBe(207);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await count()).toBe(before);
    const other = await api.post(
      batchPath,
      { contacts: [{ email: 'other@example.com' }] },
      { 'idempotency-key': 'batch-1' },
    );
    expect(other.status).toBe(422);
  });

  it('creates one contact when concurrent batches upsert the same new key', async () => {
    const before = await count();
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api.post(batchPath, {
          upsertBy: 'email',
          contacts: [{ email: 'race@example.com', firstName: `R${i}` }],
        }),
      ),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => a.body.data[0].data.id)).size).toBe(1);
    expect(answers.map((a) => a.body.data[0].status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(await count()).toBe(before + 1);
  });

  it('lets one of concurrent batches take a unique value, refusing it in the others', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api.post(batchPath, {
          contacts: [{ email: `u${i}@example.com`, properties: { externalId: 'contested' } }],
        }),
      ),
    );
    expect(answers.map((a) => a.body.data[0].status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
  });

  it("answers 404 on another company's funnel, and 403 to a read-only key, writing nothing", async () => {
    const other = await api.post(`/v1/funnels/${globex.funnelId}/contacts/batch`, {
      contacts: [{ email: 'x@example.com' }],
    });
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ error: 'Funnel not found', status: 404 });
    const before = await count();
    const readOnly = httpClient(t.baseUrl, await acme.keyFor('crm:read'));
    expect((await readOnly.post(batchPath, { contacts: [{ email: 'ro@example.com' }] })).status).toBe(403);
    expect(await count()).toBe(before);
  });

  it("never matches another company's contact with the same email", async () => {
    const theirs = await httpClient(t.baseUrl, globex.key).post(`/v1/funnels/${globex.funnelId}/contacts`, {
      email: 'shared@example.com',
    });
    const res = await api.post(batchPath, {
      upsertBy: 'email',
      contacts: [{ email: 'shared@example.com', firstName: 'Mine' }],
    });
    expect(res.body.data[0].status).toBe(201);
    expect(res.body.data[0].data.id).not.toBe(theirs.body.data.id);
    const after = await httpClient(t.baseUrl, globex.key).get(
      `/v1/funnels/${globex.funnelId}/contacts/${theirs.body.data.id}`,
    );
    expect(after.body.data.firstName).toBeUndefined();
  });
});
