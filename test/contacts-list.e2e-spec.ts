import { DataSource } from 'typeorm';
import type { Contact } from '@app/contacts';
import { startTestApp, TestApp } from './support/app';
import { insertContacts, insertMessage } from './support/contacts';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';

const DAY = 86_400_000;
const base = Date.UTC(2026, 0, 1);

// A page with a next page names the cursor to it.
const withCursor = { nextCursor: expect.any(String) };

describe('GET /v1/funnels/{funnelId}/contacts', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let api: ReturnType<typeof httpClient>;
  let path: string;
  let contacts: Contact[];

  beforeAll(async () => {
    t = await startTestApp();
    acme = await createTenant(t.app);
    api = httpClient(t.baseUrl, acme.key);
    path = `/v1/funnels/${acme.funnelId}/contacts`;
    // 23 contacts: some share a sort value (ties go by id), some lack it (nulls first/last).
    const names = ['mia', 'ben', 'ada', 'lea', 'ben', null, 'zoe', 'ada', null, 'max', 'eva', 'tom'];
    contacts = await insertContacts(
      t.app,
      acme,
      Array.from({ length: 23 }, (_, i) => ({
        email: i % 7 === 3 ? null : `${names[i % names.length] ?? 'x'}${i % 5}@example.com`,
        phone: i % 7 === 3 ? `+49151000${i}` : null,
        firstName: names[i % names.length],
        lastName: names[(i * 5) % names.length],
        convertedAt: i % 6 === 5 ? null : new Date(base + (i % 9) * DAY),
      })),
    );
  });
  afterAll(() => t.close());

  type Key = (c: Contact) => string | number | null;
  const KEYS: Record<string, Key> = {
    ps_converted_at: (c) => c.convertedAt?.getTime() ?? null,
    email: (c) => c.email,
    firstName: (c) => c.firstName,
    lastName: (c) => c.lastName,
  };
  // The documented order: ascending puts missing values first, descending last; ties by id.
  const expectedOrder = (field: string, order: 1 | -1) =>
    [...contacts]
      .sort((a, b) => {
        const [x, y] = [KEYS[field](a), KEYS[field](b)];
        const byValue = x === y ? 0 : x === null ? -1 : y === null ? 1 : x < y ? -1 : 1;
        return byValue || (a.id < b.id ? -1 : 1);
      })
      .map((c) => c.id)
      [order === 1 ? 'slice' : 'reverse']();

  it('answers the first 50 contacts, newest conversion first, with pagination meta', async () => {
    const res = await api.get(path);
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ page: 0, limit: 50, total: 23, hasNext: false });
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual(expectedOrder('ps_converted_at', -1));
  });

  it.each(['ps_converted_at', 'email', 'firstName', 'lastName'])(
    'sorts by %s in both orders',
    async (field) => {
      for (const order of [1, -1] as const) {
        const res = await api.get(`${path}?sortField=${field}&sortOrder=${order}&limit=100`);
        expect(res.status).toBe(200);
        expect(res.body.data.map((c: { id: string }) => c.id)).toEqual(expectedOrder(field, order));
      }
    },
  );

  it('walks the pages without gaps or repeats', async () => {
    const seen: string[] = [];
    for (let page = 0; page < 5; page++) {
      const res = await api.get(`${path}?limit=5&page=${page}&sortField=firstName&sortOrder=1`);
      const hasNext = page < 4;
      expect(res.body.meta).toEqual({
        page,
        limit: 5,
        total: 23,
        hasNext,
        ...(hasNext ? withCursor : {}),
      });
      seen.push(...res.body.data.map((c: { id: string }) => c.id));
    }
    expect(seen).toEqual(expectedOrder('firstName', 1));
  });

  it('answers an empty page past the end', async () => {
    const res = await api.get(`${path}?page=3&limit=10`);
    expect(res.body).toEqual({ data: [], meta: { page: 3, limit: 10, total: 23, hasNext: false } });
    const huge = await api.get(`${path}?page=99999999999999&limit=100`);
    expect(huge.status).toBe(200);
    expect(huge.body.data).toEqual([]);
  });

  it('keeps total right as contacts are created and deleted', async () => {
    const other = await createTenant(t.app);
    const otherApi = httpClient(t.baseUrl, other.key);
    const otherPath = `/v1/funnels/${other.funnelId}/contacts`;
    expect((await otherApi.get(otherPath)).body.meta.total).toBe(0);
    const created = await otherApi.post(otherPath, { email: 'one@example.com' });
    await insertContacts(t.app, other, [{ email: 'two@example.com' }, { email: 'three@example.com' }]);
    expect((await otherApi.get(otherPath)).body.meta.total).toBe(3);
    await t.app.get(DataSource).query('DELETE FROM contacts WHERE id = $1', [created.body.data.id]);
    expect((await otherApi.get(otherPath)).body.meta).toMatchObject({ total: 2, hasNext: false });
    expect((await api.get(path)).body.meta.total).toBe(23);
  });

  it('presents each contact with its messages, oldest first', async () => {
    const [contact] = await insertContacts(t.app, acme, [
      {
        email: 'full@example.com',
        convertedAt: new Date(base + 100 * DAY),
        name: 'Full Contact',
        fullAddress: 'Invalidenstraße 117, 10115 Berlin',
        timezone: 'Europe/Berlin',
        city: 'Berlin',
        meta: { ps_source: 'funnel', ps_embed: true, ps_start_slug: 'start' },
        utmParams: { utm_source: 'google', utm_medium: '' },
        properties: { newsletter: true, score: 7, note: null },
      },
    ]);
    await insertMessage(t.app, contact, {
      name: 'Second',
      type: 'sms',
      content: 'Hi again',
      createdAt: new Date(base + 2 * DAY),
    });
    await insertMessage(t.app, contact, {
      name: 'First',
      type: 'email',
      subject: 'Welcome',
      content: 'Hello',
      createdAt: new Date(base + DAY),
    });
    const res = await api.get(`${path}?limit=1`);
    // Recording a message is a change of the contact: updatedAt is the latest write.
    const [stored]: { created_at: Date; updated_at: Date }[] = await t.app
      .get(DataSource)
      .query('SELECT created_at, updated_at FROM contacts WHERE id = $1', [contact.id]);
    expect(stored.updated_at.getTime()).toBeGreaterThan(stored.created_at.getTime());
    expect(res.body.data).toEqual([
      {
        id: contact.id,
        status: 'lead',
        email: 'full@example.com',
        name: 'Full Contact',
        fullAddress: 'Invalidenstraße 117, 10115 Berlin',
        timezone: 'Europe/Berlin',
        address: { city: 'Berlin' },
        meta: {
          ps_source: 'funnel',
          ps_embed: true,
          ps_start_slug: 'start',
          ps_converted_at: new Date(base + 100 * DAY).toISOString(),
        },
        utmParams: { utm_source: 'google' },
        properties: { newsletter: true, score: 7, note: null },
        createdAt: contact.createdAt.toISOString(),
        updatedAt: stored.updated_at.toISOString(),
        messages: [
          {
            id: expect.any(String),
            name: 'First',
            type: 'email',
            subject: 'Welcome',
            content: 'Hello',
            status: 'recorded',
            clicks: 0,
          },
          {
            id: expect.any(String),
            name: 'Second',
            type: 'sms',
            content: 'Hi again',
            status: 'recorded',
            clicks: 0,
          },
        ],
      },
    ]);
    await t.app.get(DataSource).query('DELETE FROM contacts WHERE id = $1', [contact.id]);
  });

  describe('answers 400 for an invalid query', () => {
    const cases: [string, string][] = [
      ['limit=0', 'limit must be an integer from 1 to 100'],
      ['limit=101', 'limit must be an integer from 1 to 100'],
      ['limit=1.5', 'limit must be an integer from 1 to 100'],
      ['limit=ten', 'limit must be an integer from 1 to 100'],
      ['limit=', 'limit must be an integer from 1 to 100'],
      ['limit=5&limit=6', 'limit must be an integer from 1 to 100'],
      ['page=-1', 'page must be an integer of at least 0'],
      ['page=0.5', 'page must be an integer of at least 0'],
      ['page=first', 'page must be an integer of at least 0'],
      [
        'sortField=createdAt',
        'sortField must be one of ps_converted_at, email, firstName, lastName, updatedAt',
      ],
      [
        'sortField=first_name',
        'sortField must be one of ps_converted_at, email, firstName, lastName, updatedAt',
      ],
      ['sortOrder=0', 'sortOrder must be -1 or 1'],
      ['sortOrder=2', 'sortOrder must be -1 or 1'],
      ['sortOrder=desc', 'sortOrder must be -1 or 1'],
      ['search=ada', 'search is not a recognised field'],
    ];
    it.each(cases)('%s', async (query, error) => {
      const res = await api.get(`${path}?${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error, status: 400, details: [error] });
    });

    it('listing every problem', async () => {
      const res = await api.get(`${path}?limit=500&page=-2&sortField=x`);
      expect(res.body.details).toEqual([
        'page must be an integer of at least 0',
        'limit must be an integer from 1 to 100',
        'sortField must be one of ps_converted_at, email, firstName, lastName, updatedAt',
      ]);
    });

    it('when funnelId is not a UUID', async () => {
      const res = await api.get('/v1/funnels/123/contacts');
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('funnelId must be a UUID');
    });
  });

  it('accepts the documented bounds', async () => {
    for (const query of ['limit=1', 'limit=100', 'page=0', 'sortOrder=1', 'sortOrder=-1']) {
      expect((await api.get(`${path}?${query}`)).status).toBe(200);
    }
  });

  it('answers 404 for an unknown funnel', async () => {
    const res = await api.get('/v1/funnels/6d1c0f5e-2a7b-4c84-9d0e-1f2a3b4c5d6e/contacts');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Funnel not found', status: 404 });
  });
});
