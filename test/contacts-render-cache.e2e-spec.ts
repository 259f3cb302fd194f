import { DataSource } from 'typeorm';
import { ContactJsonCache, ContactsRepository } from '@app/contacts';
import { FunnelsService } from '@app/workspaces';
import { startTestApp, TestApp } from './support/app';
import { insertContacts, insertMessage } from './support/contacts';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';

// Reads send contacts from ContactJsonCache when the row's version is the one they read. Two
// replicas share one database here: whatever one writes, through any door, the other's next read
// shows, with no delay to wait out.
describe('contacts read through the render cache', () => {
  let a: TestApp;
  let b: TestApp;
  let tenant: TenantFixture;
  let readA: ReturnType<typeof httpClient>;
  let writeB: ReturnType<typeof httpClient>;
  let path: string;
  let ids: string[];

  beforeAll(async () => {
    a = await startTestApp();
    b = await startTestApp({}, a.databaseUrl);
    tenant = await createTenant(a.app);
    readA = httpClient(a.baseUrl, tenant.key);
    writeB = httpClient(b.baseUrl, tenant.key);
    path = `/v1/funnels/${tenant.funnelId}/contacts`;
    const contacts = await insertContacts(
      a.app,
      tenant,
      Array.from({ length: 12 }, (_, i) => ({ email: `c${i}@example.com`, city: 'Berlin' })),
    );
    ids = contacts.map((c) => c.id);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const listed = async (id: string) => {
    const res = await readA.get(`${path}?limit=100`);
    expect(res.status).toBe(200);
    return (res.body.data as { id: string; address?: { city?: string } }[]).find((c) => c.id === id);
  };

  it('answers a repeated read from the cache, with the same bytes', async () => {
    const first = await fetch(`${a.baseUrl}${path}?limit=100`, {
      headers: { 'x-service-api-key': tenant.key },
    });
    const firstText = await first.text();
    expect(a.app.get(ContactJsonCache).size).toBeGreaterThanOrEqual(12);
    const again = await fetch(`${a.baseUrl}${path}?limit=100`, {
      headers: { 'x-service-api-key': tenant.key },
    });
    expect(await again.text()).toBe(firstText);
    expect(again.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it("shows another replica's value update on the very next read, every time", async () => {
    const id = ids[0];
    await listed(id);
    for (let i = 0; i < 30; i++) {
      const city = `City ${i}`;
      expect((await writeB.put(`${path}/${id}/values`, { fieldName: 'city', value: city })).status).toBe(200);
      expect((await listed(id))?.address?.city).toBe(city);
      expect((await readA.get(`${path}/${id}`)).body.data.address.city).toBe(city);
    }
  });

  it('shows a message recorded for the contact', async () => {
    const id = ids[1];
    expect((await listed(id)) as unknown).not.toHaveProperty('messages.0');
    const [contact] = await b.app.get(DataSource).query('SELECT * FROM contacts WHERE id = $1', [id]);
    await insertMessage(
      b.app,
      { ...contact, funnelId: contact.funnel_id },
      { name: 'Welcome', content: 'Hi' },
    );
    expect(await listed(id)).toMatchObject({ messages: [{ name: 'Welcome', content: 'Hi' }] });
    expect((await readA.get(`${path}/${id}`)).body.data.messages).toHaveLength(1);
  });

  it('shows a change written straight to the database by another writer', async () => {
    const id = ids[2];
    await listed(id);
    await b.app.get(DataSource).query(`UPDATE contacts SET city = 'Hamburg' WHERE id = $1`, [id]);
    expect((await listed(id))?.address?.city).toBe('Hamburg');
  });

  it('leaves out a contact erased on another replica, in a list and alone', async () => {
    const id = ids[3];
    expect(await listed(id)).toBeDefined();
    expect((await writeB.send('DELETE', `${path}/${id}`)).status).toBe(204);
    expect(await listed(id)).toBeUndefined();
    expect((await readA.get(`${path}/${id}`)).status).toBe(404);
  });

  it('answers a repeated single read from its version alone, and reads the row again once it changed', async () => {
    const id = ids[4];
    const rows = a.app.get(ContactsRepository);
    const fullReads = jest.spyOn(rows, 'findOne');
    const probes = jest.spyOn(rows, 'versionOf');
    a.app.get(ContactJsonCache).forget(id);
    try {
      const first = await fetch(`${a.baseUrl}${path}/${id}`, {
        headers: { 'x-service-api-key': tenant.key },
      });
      const firstText = await first.text();
      expect(first.status).toBe(200);
      const again = await fetch(`${a.baseUrl}${path}/${id}`, {
        headers: { 'x-service-api-key': tenant.key },
      });
      expect(await again.text()).toBe(firstText);
      expect(fullReads).toHaveBeenCalledTimes(1);
      expect(probes).toHaveBeenCalledTimes(1);
      expect(probes).toHaveReturnedTimes(1);

      await b.app.get(DataSource).query(`UPDATE contacts SET first_name = 'Changed' WHERE id = $1`, [id]);
      const changed = await readA.get(`${path}/${id}`);
      expect(changed.body.data.firstName).toBe('Changed');
      expect(fullReads).toHaveBeenCalledTimes(2);
      expect(probes).toHaveBeenCalledTimes(2);
    } finally {
      fullReads.mockRestore();
      probes.mockRestore();
    }
  });

  it('does not answer a kept contact through another funnel or another company', async () => {
    const id = ids[6];
    expect((await readA.get(`${path}/${id}`)).status).toBe(200);
    expect(a.app.get(ContactJsonCache).holds(id)).toBe(true);
    const sibling = await a.app.get(FunnelsService).create({
      workspaceId: tenant.workspaceId,
      name: 'Sibling funnel',
      status: 'online',
      pages: [{ slug: 'start', title: 'Start' }],
    });
    const viaSibling = await readA.get(`/v1/funnels/${sibling.id}/contacts/${id}`);
    expect(viaSibling.status).toBe(404);
    expect(viaSibling.body).toEqual({ error: 'Contact not found', status: 404 });
    const other = await createTenant(a.app);
    const viaOther = await httpClient(a.baseUrl, other.key).get(
      `/v1/funnels/${other.funnelId}/contacts/${id}`,
    );
    expect(viaOther.status).toBe(404);
    expect(JSON.stringify(viaOther.body)).not.toContain('c6@example.com');
    expect((await readA.get(`${path}/${id}`)).body.data.email).toBe('c6@example.com');
  });

  it('answers 404 for a kept contact deleted straight from the database, and forgets it', async () => {
    const id = ids[7];
    expect((await readA.get(`${path}/${id}`)).status).toBe(200);
    await b.app.get(DataSource).query('DELETE FROM contacts WHERE id = $1', [id]);
    expect((await readA.get(`${path}/${id}`)).status).toBe(404);
    expect(a.app.get(ContactJsonCache).holds(id)).toBe(false);
  });

  it('reads the same contacts by cursor and with filters as by page', async () => {
    const byPage = (await readA.get(`${path}?limit=100`)).body.data;
    const filtered = (await readA.get(`${path}?limit=100&email=${encodeURIComponent('c5@example.com')}`))
      .body;
    expect(filtered.data).toEqual(byPage.filter((c: { email: string }) => c.email === 'c5@example.com'));
    const first = (await readA.get(`${path}?limit=4`)).body;
    const next = (await readA.get(`${path}?limit=4&cursor=${first.meta.nextCursor}`)).body;
    expect([...first.data, ...next.data]).toEqual(byPage.slice(0, 8));
  });
});
