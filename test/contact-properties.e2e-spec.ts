import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from './support/app';
import { insertContacts } from './support/contacts';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';

describe('/v1/funnels/{funnelId}/properties', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let globex: TenantFixture;
  let api: ReturnType<typeof httpClient>;
  let path: string;
  let contactsPath: string;

  beforeAll(async () => {
    t = await startTestApp();
    [acme, globex] = [await createTenant(t.app), await createTenant(t.app)];
    api = httpClient(t.baseUrl, acme.key);
    path = `/v1/funnels/${acme.funnelId}/properties`;
    contactsPath = `/v1/funnels/${acme.funnelId}/contacts`;
  });
  afterAll(() => t.close());

  const newContact = async (email: string) =>
    (await api.post(contactsPath, { email, skipAutomationTrigger: true })).body.data.id as string;
  const put = (id: string, fieldName: string, value: string) =>
    api.put(`${contactsPath}/${id}/values`, { fieldName, value });
  const read = async (id: string) => (await api.get(`${contactsPath}/${id}`)).body.data;

  it('defines, reads, changes and removes a property', async () => {
    const created = await api.post(path, {
      name: 'plan',
      type: 'enum',
      options: ['free', 'pro'],
      label: 'Plan',
      description: 'What the customer pays for',
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${path}/plan`);
    expect(created.body.data).toEqual({
      name: 'plan',
      type: 'enum',
      options: ['free', 'pro'],
      unique: false,
      label: 'Plan',
      description: 'What the customer pays for',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await api.get(`${path}/plan`)).body.data.options).toEqual(['free', 'pro']);
    expect((await api.get(path)).body.data.map((d: { name: string }) => d.name)).toContain('plan');

    const changed = await api.send('PATCH', `${path}/plan`, { options: ['free', 'pro', 'enterprise'] });
    expect(changed.status).toBe(200);
    expect(changed.body.data.options).toEqual(['free', 'pro', 'enterprise']);

    expect((await api.send('DELETE', `${path}/plan`)).status).toBe(204);
    expect((await api.get(`${path}/plan`)).status).toBe(404);
    expect((await api.send('DELETE', `${path}/plan`)).status).toBe(404);
  });

  it('checks values written by PUT …/values against the definition and stores them typed', async () => {
    await api.post(path, { name: 'score', type: 'number' });
    await api.post(path, { name: 'vip', type: 'boolean' });
    await api.post(path, { name: 'renewal', type: 'date' });
    const id = await newContact('typed@example.com');
    const refused = await put(id, 'score', 'high');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('value must be a number (property score)');
    expect((await put(id, 'renewal', '2026-02-30')).body.error).toBe(
      'value must be a date in the form YYYY-MM-DD (property renewal)',
    );
    expect((await put(id, 'score', '42.5')).status).toBe(200);
    expect((await put(id, 'vip', 'true')).status).toBe(200);
    expect((await put(id, 'renewal', '2027-01-31')).status).toBe(200);
    // An undefined property keeps taking any text, as before.
    expect((await put(id, 'nickname', '42')).status).toBe(200);
    expect((await read(id)).properties).toEqual({
      score: 42.5,
      vip: true,
      renewal: '2027-01-31',
      nickname: '42',
    });
  });

  it('refuses a definition the stored values do not fit, with their count, and changes nothing', async () => {
    const [a, b] = [await newContact('m1@example.com'), await newContact('m2@example.com')];
    await put(a, 'age', '31');
    await put(b, 'age', 'thirty');
    const refused = await api.post(path, { name: 'age', type: 'number' });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: '1 existing values of age do not fit the definition',
      status: 409,
      misfits: 1,
      details: ['1 stored values of age are not of type number'],
    });
    expect((await api.get(`${path}/age`)).status).toBe(404);
    expect((await read(a)).properties).toEqual({ age: '31' });

    await put(b, 'age', '29');
    expect((await api.post(path, { name: 'age', type: 'number' })).status).toBe(201);
    // The values that fit are now stored as numbers.
    expect((await read(a)).properties).toEqual({ age: 31 });
  });

  it('refuses a unique definition over shared values, then refuses a second contact with a value (409)', async () => {
    const [a, b, c] = [
      await newContact('u1@example.com'),
      await newContact('u2@example.com'),
      await newContact('u3@example.com'),
    ];
    await put(a, 'orderId', 'A-1');
    await put(b, 'orderId', 'A-1');
    const refused = await api.post(path, { name: 'orderId', type: 'string', unique: true });
    expect(refused.status).toBe(409);
    expect(refused.body.misfits).toBe(2);

    await put(b, 'orderId', 'B-1');
    expect((await api.post(path, { name: 'orderId', type: 'string', unique: true })).status).toBe(201);
    const taken = await put(c, 'orderId', 'A-1');
    expect(taken.status).toBe(409);
    expect(taken.body.error).toBe(
      'properties.orderId is unique: another contact of the funnel already holds this value',
    );
    expect((await read(c)).properties).toBeUndefined();
    // The holder may write its own value again; once it lets the value go, another may take it.
    expect((await put(a, 'orderId', 'A-1')).status).toBe(200);
    expect((await put(a, 'orderId', 'A-2')).status).toBe(200);
    expect((await put(c, 'orderId', 'A-1')).status).toBe(200);
    // Erasing a holder frees its value.
    expect((await api.send('DELETE', `${contactsPath}/${a}`)).status).toBe(204);
    expect((await put(b, 'orderId', 'A-2')).status).toBe(200);
  });

  it('lets exactly one of many concurrent writers take a unique value', async () => {
    await api.post(path, { name: 'ticket', type: 'number', unique: true });
    const ids = await Promise.all(Array.from({ length: 8 }, (_, i) => newContact(`race${i}@example.com`)));
    const answers = await Promise.all(
      ids.map((id, i) =>
        i % 2
          ? put(id, 'ticket', '7')
          : api.send('PATCH', `${contactsPath}/${id}`, { properties: { ticket: 7 } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    const holders: unknown[] = await t.app
      .get(DataSource)
      .query(`SELECT id FROM contacts WHERE funnel_id = $1 AND properties ->> 'ticket' = '7'`, [
        acme.funnelId,
      ]);
    expect(holders).toHaveLength(1);
  });

  it('keeps a unique value to one contact whoever writes it, even plain SQL', async () => {
    await api.post(path, { name: 'sku', type: 'string', unique: true });
    await insertContacts(t.app, acme, [{ email: 'sql1@example.com', properties: { sku: 'S-1' } }]);
    await expect(
      insertContacts(t.app, acme, [{ email: 'sql2@example.com', properties: { sku: 'S-1' } }]),
    ).rejects.toThrow(/duplicate key/);
  });

  it.each([
    [{ type: 'number' }, 'name is required'],
    [{ name: 'email', type: 'string' }, 'email is a standard field, not a custom property'],
    [{ name: 'ps_source', type: 'string' }, 'ps_source is a reserved system field'],
    [{ name: 'tier', type: 'integer' }, 'type must be one of: string, number, boolean, date, enum'],
    [{ name: 'tier', type: 'enum' }, 'options are required for an enum property'],
    [{ name: 'tier', type: 'boolean', unique: true }, 'a boolean property cannot be unique'],
    [{ name: 'tier', type: 'string', color: 'red' }, 'color is not a recognised field'],
  ])('answers 400 for %j and defines nothing', async (body, error) => {
    const res = await api.post(path, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
    expect((await api.get(`${path}/tier`)).status).toBe(404);
  });

  it('answers 409 for a second definition of a property', async () => {
    await api.post(path, { name: 'twice', type: 'string' });
    const res = await api.post(path, { name: 'twice', type: 'number' });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('property twice is already defined');
  });

  it("answers 404 for another company's funnel, and 403 to a read-only key that changes one", async () => {
    const other = `/v1/funnels/${globex.funnelId}/properties`;
    expect((await api.get(other)).status).toBe(404);
    expect((await api.post(other, { name: 'x', type: 'string' })).status).toBe(404);
    expect((await httpClient(t.baseUrl, globex.key).get(other)).body.data).toEqual([]);
    const readOnly = httpClient(t.baseUrl, await acme.keyFor('crm:read'));
    expect((await readOnly.get(path)).status).toBe(200);
    expect((await readOnly.post(path, { name: 'ro', type: 'string' })).status).toBe(403);
    expect((await readOnly.send('DELETE', `${path}/score`)).status).toBe(403);
  });
});
