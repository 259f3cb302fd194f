import { DataSource } from 'typeorm';
import type { Contact } from '@app/contacts';
import { startTestApp, TestApp } from './support/app';
import { insertContacts } from './support/contacts';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';

const DAY = 86_400_000;
const base = Date.UTC(2026, 0, 1);
type Row = { id: string; updatedAt: string; createdAt: string };
const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

describe('GET /v1/funnels/{funnelId}/contacts: filters, cursor and sync', () => {
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
    const names = ['mia', null, 'ada', 'ben', 'ada', null, 'zoe'];
    contacts = await insertContacts(
      t.app,
      acme,
      Array.from({ length: 17 }, (_, i) => ({
        email: i % 5 === 4 ? null : `Person${i}@Example.com`,
        phone: i % 5 === 4 ? `+49 151 000-${i}` : null,
        status: i % 3 === 0 ? 'converted' : 'lead',
        firstName: names[i % names.length],
        convertedAt: i % 4 === 3 ? null : new Date(base + (i % 6) * DAY),
      })),
    );
  });
  afterAll(() => t.close());

  /** Every page of a query by cursor, checking meta on the way. */
  async function walk(query: string): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const res = await api.get(`${path}?${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.meta.page).toBe(page);
      expect(typeof res.body.meta.nextCursor === 'string').toBe(res.body.meta.hasNext);
      seen.push(...ids(res.body.data));
      cursor = res.body.meta.nextCursor;
      if (!cursor) return seen;
    }
    throw new Error('the cursor walk did not end');
  }

  it('finds a contact by email, case-insensitively and exactly', async () => {
    const res = await api.get(`${path}?email=${encodeURIComponent(' person2@EXAMPLE.com ')}`);
    expect(res.status).toBe(200);
    expect(ids(res.body.data)).toEqual([contacts[2].id]);
    expect(res.body.meta).toEqual({ page: 0, limit: 50, total: 1, hasNext: false });
    const partial = await api.get(`${path}?email=person2@example`);
    expect(partial.body).toEqual({ data: [], meta: { page: 0, limit: 50, total: 0, hasNext: false } });
  });

  it('finds a contact by phone, comparing digits only', async () => {
    const res = await api.get(`${path}?phone=${encodeURIComponent('(+49) 1510 00 9')}`);
    expect(ids(res.body.data)).toEqual([contacts[9].id]);
    expect(res.body.meta.total).toBe(1);
  });

  it('filters by status and counts the matches as total', async () => {
    const expected = contacts.filter((c) => c.status === 'converted').map((c) => c.id);
    const res = await api.get(`${path}?status=converted&limit=100&sortField=firstName&sortOrder=1`);
    expect(res.body.meta.total).toBe(expected.length);
    expect(ids(res.body.data).sort()).toEqual([...expected].sort());
    // Combined with a sort order: the same order as the unfiltered list, restricted.
    const all = await api.get(`${path}?limit=100&sortField=firstName&sortOrder=1`);
    expect(ids(res.body.data)).toEqual(ids(all.body.data).filter((id: string) => expected.includes(id)));
  });

  it('walks every sort order by cursor in the same order as by page, nulls included', async () => {
    for (const sortField of ['ps_converted_at', 'email', 'firstName', 'lastName', 'updatedAt']) {
      for (const sortOrder of [1, -1]) {
        const query = `sortField=${sortField}&sortOrder=${sortOrder}`;
        const byPage = await api.get(`${path}?${query}&limit=100`);
        expect(await walk(`${query}&limit=3`)).toEqual(ids(byPage.body.data));
      }
    }
  });

  it('walks a filtered list by cursor', async () => {
    const byPage = await api.get(`${path}?status=lead&limit=100`);
    expect(byPage.body.meta.total).toBe(contacts.filter((c) => c.status === 'lead').length);
    expect(await walk('status=lead&limit=2')).toEqual(ids(byPage.body.data));
  });

  it('neither repeats nor skips when contacts are added before the cursor', async () => {
    const first = await api.get(`${path}?sortField=firstName&sortOrder=1&limit=5`);
    await insertContacts(t.app, acme, [{ email: 'aaa@example.com', firstName: 'aaa' }]);
    const next = await api.get(
      `${path}?sortField=firstName&sortOrder=1&limit=5&cursor=${first.body.meta.nextCursor}`,
    );
    const byPage = await api.get(`${path}?sortField=firstName&sortOrder=1&limit=100`);
    const after = ids(byPage.body.data);
    const lastSeen = after.indexOf(ids(first.body.data)[4]);
    expect(ids(next.body.data)).toEqual(after.slice(lastSeen + 1, lastSeen + 6));
  });

  it('syncs what changed: updatedAt moves on every write, updatedAfter and sortField=updatedAt find it', async () => {
    const before = await api.get(`${path}?sortField=updatedAt&sortOrder=-1&limit=1`);
    const since: string = before.body.data[0].updatedAt;
    // The write below is stamped after `since`: wait for the clock to pass it.
    while (Date.now() <= Date.parse(since)) await new Promise((resolve) => setTimeout(resolve, 1));
    const target = contacts[5];
    const put = await api.put(`${path}/${target.id}/values`, { fieldName: 'lastName', value: 'Changed' });
    expect(put.status).toBe(200);

    const res = await api.get(`${path}?updatedAfter=${since}&sortField=updatedAt&sortOrder=1`);
    expect(ids(res.body.data)).toEqual([target.id]);
    const row: Row = res.body.data[0];
    expect(Date.parse(row.updatedAt)).toBeGreaterThan(Date.parse(since));
    expect(Date.parse(row.updatedAt)).toBeGreaterThan(Date.parse(row.createdAt));
    expect(row.createdAt).toBe(target.createdAt.toISOString());

    // A write straight to the table (another door) moves it too.
    await t.app.get(DataSource).query(`UPDATE contacts SET city = 'Bonn' WHERE id = $1`, [contacts[6].id]);
    const again = await api.get(`${path}?updatedAfter=${since}&sortField=updatedAt&sortOrder=1`);
    expect(ids(again.body.data)).toEqual([target.id, contacts[6].id]);
  });

  it('filters by createdAfter', async () => {
    const newest = await insertContacts(t.app, acme, [{ email: 'late@example.com' }]);
    const since = new Date(newest[0].createdAt.getTime() - 1).toISOString();
    const res = await api.get(`${path}?createdAfter=${since}`);
    expect(ids(res.body.data)).toEqual([newest[0].id]);
    const none = await api.get(
      `${path}?createdAfter=${encodeURIComponent(newest[0].createdAt.toISOString())}`,
    );
    expect(none.body.meta.total).toBe(0);
  });

  describe('answers 400', () => {
    const cases: [string, string][] = [
      ['email=', 'email must be a non-empty string of at most 320 characters'],
      ['phone=abc', 'phone must contain at least one digit'],
      ['status=customer', "status must be one of the funnel's statuses: lead, converted"],
      [
        'updatedAfter=yesterday',
        'updatedAfter must be an ISO 8601 date-time with a zone, e.g. 2026-01-31T12:00:00Z',
      ],
      [
        'createdAfter=2026-01-31T12:00:00',
        'createdAfter must be an ISO 8601 date-time with a zone, e.g. 2026-01-31T12:00:00Z',
      ],
      ['cursor=not-a-cursor', 'cursor is not valid: pass meta.nextCursor unchanged'],
      [`cursor=${'x'.repeat(1001)}`, 'cursor must be a meta.nextCursor of at most 1000 characters'],
    ];
    it.each(cases)('for %s', async (query, error) => {
      const res = await api.get(`${path}?${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error, status: 400 });
    });

    it('for a cursor of another sort order or filter, or beside a page', async () => {
      const { nextCursor } = (await api.get(`${path}?limit=2&sortField=email`)).body.meta;
      const mismatch =
        'cursor was made for another sortField, sortOrder or filter: repeat the request that answered it, changing only cursor';
      for (const query of [
        'sortField=firstName',
        'sortField=email&sortOrder=1',
        'sortField=email&status=lead',
      ]) {
        const res = await api.get(`${path}?limit=2&${query}&cursor=${nextCursor}`);
        expect(res.body).toMatchObject({ status: 400, error: mismatch });
      }
      const paged = await api.get(`${path}?limit=2&sortField=email&page=3&cursor=${nextCursor}`);
      expect(paged.body).toMatchObject({ status: 400, error: 'page cannot be combined with cursor' });
    });
  });

  it("answers 404 for another company's funnel, whatever the filters", async () => {
    const other = await createTenant(t.app);
    const res = await httpClient(t.baseUrl, other.key).get(`${path}?email=person2@example.com`);
    expect(res.status).toBe(404);
  });
});
