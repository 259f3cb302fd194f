import { DataSource, type DeepPartial } from 'typeorm';
import type { Contact } from '@app/contacts';
import { startTestApp, TestApp } from './support/app';
import { insertContacts } from './support/contacts';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';

const DAY = 86_400_000;
const base = Date.UTC(2026, 0, 1);
const iso = (day: number) => new Date(base + day * DAY).toISOString();

type Filter = { field: string; operator: string; value?: unknown };

describe('POST /v1/funnels/{funnelId}/contacts/search', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let globex: TenantFixture;
  let api: ReturnType<typeof httpClient>;
  let path: string;
  const byName = new Map<string, Contact>();

  beforeAll(async () => {
    t = await startTestApp();
    [acme, globex] = [await createTenant(t.app), await createTenant(t.app)];
    api = httpClient(t.baseUrl, acme.key);
    path = `/v1/funnels/${acme.funnelId}/contacts/search`;
    const rows: DeepPartial<Contact>[] = [
      {
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'Ada@Example.com',
        phone: '+49 151 111',
        city: 'Berlin',
        meta: { ps_source: 'funnel', ps_email_verified: true },
        utmParams: { utm_source: 'google' },
        properties: { plan: 'pro', score: '70' },
        convertedAt: new Date(base + DAY),
      },
      {
        firstName: 'Ben',
        email: 'ben@acme.com',
        status: 'converted',
        city: 'Hamburg',
        meta: { ps_source: 'external-api' },
        utmParams: { utm_source: 'newsletter' },
        properties: { plan: 'free' },
        convertedAt: new Date(base + 2 * DAY),
      },
      {
        firstName: 'Cy',
        email: 'cy@acme.com',
        meta: { ps_email_verified: false },
        properties: { plan: 'pro', note: '100%_sure' },
        convertedAt: new Date(base + 3 * DAY),
      },
      {
        firstName: 'Dan',
        phone: '+1 555 0100',
        status: 'converted',
        city: 'Berlin',
        properties: { plan: null },
      },
      { email: 'eve@example.org', lastName: 'Adams' },
    ];
    const contacts = await insertContacts(t.app, acme, rows);
    const names = ['ada', 'ben', 'cy', 'dan', 'eve'];
    const ds = t.app.get(DataSource);
    for (const [i, contact] of contacts.entries()) {
      byName.set(names[i], contact);
      await ds.query('UPDATE contacts SET created_at = $1 WHERE id = $2', [iso(i * 10), contact.id]);
    }
    // The same email in another company's funnel: never found from acme's.
    await insertContacts(t.app, globex, [{ email: 'ada@example.com', properties: { plan: 'pro' } }]);
  });
  afterAll(() => t.close());

  const search = (groups: Filter[][], extra: Record<string, unknown> = {}) =>
    api.post(path, { filterGroups: groups.map((filters) => ({ filters })), ...extra });
  const namesOf = (data: { id: string }[]) =>
    data.map((c) => [...byName].find(([, contact]) => contact.id === c.id)?.[0] ?? c.id).sort();
  const found = async (groups: Filter[][]) => {
    const res = await search(groups, { limit: 100 });
    expect(res.status).toBe(200);
    expect(res.body.meta.total).toBe(res.body.data.length);
    return namesOf(res.body.data);
  };

  it('answers every contact without filters, like the list, with the same Contact JSON', async () => {
    const res = await api.post(path, {});
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ limit: 50, total: 5, hasNext: false });
    const list = await api.get(`/v1/funnels/${acme.funnelId}/contacts`);
    expect(res.body.data).toEqual(list.body.data);
  });

  it.each<[string, Filter, string[]]>([
    ['eq (email whatever the case)', { field: 'email', operator: 'eq', value: 'ADA@example.COM' }, ['ada']],
    [
      'neq (missing values included)',
      { field: 'address.city', operator: 'neq', value: 'Berlin' },
      ['ben', 'cy', 'eve'],
    ],
    ['lt', { field: 'createdAt', operator: 'lt', value: iso(10) }, ['ada']],
    ['lte', { field: 'createdAt', operator: 'lte', value: iso(10) }, ['ada', 'ben']],
    ['gt', { field: 'createdAt', operator: 'gt', value: iso(30) }, ['eve']],
    ['gte', { field: 'createdAt', operator: 'gte', value: iso(30) }, ['dan', 'eve']],
    ['in', { field: 'status', operator: 'in', value: ['converted', 'other'] }, ['ben', 'dan']],
    [
      'not_in (missing values included)',
      { field: 'address.city', operator: 'not_in', value: ['Hamburg'] },
      ['ada', 'cy', 'dan', 'eve'],
    ],
    [
      'contains (case-insensitive)',
      { field: 'firstName', operator: 'contains', value: 'DA' },
      ['ada', 'dan'],
    ],
    ['starts_with (email)', { field: 'email', operator: 'starts_with', value: 'B' }, ['ben']],
    ['exists', { field: 'phone', operator: 'exists' }, ['ada', 'dan']],
    ['not_exists', { field: 'email', operator: 'not_exists' }, ['dan']],
  ])('filters with %s', async (_, filter, expected) => {
    expect(await found([[filter]])).toEqual(expected);
  });

  it.each<[string, Filter, string[]]>([
    ['phone by its digits', { field: 'phone', operator: 'eq', value: '+49-151-111' }, ['ada']],
    ['lastName', { field: 'lastName', operator: 'starts_with', value: 'Ada' }, ['eve']],
    [
      'meta.ps_converted_at',
      { field: 'meta.ps_converted_at', operator: 'gte', value: iso(2) },
      ['ben', 'cy'],
    ],
    ['updatedAt', { field: 'updatedAt', operator: 'gt', value: iso(0) }, ['ada', 'ben', 'cy', 'dan', 'eve']],
    ['meta text', { field: 'meta.ps_source', operator: 'eq', value: 'funnel' }, ['ada']],
    ['meta boolean true', { field: 'meta.ps_email_verified', operator: 'eq', value: true }, ['ada']],
    ['meta boolean false', { field: 'meta.ps_email_verified', operator: 'eq', value: false }, ['cy']],
    ['meta boolean exists', { field: 'meta.ps_email_verified', operator: 'exists' }, ['ada', 'cy']],
    [
      'utmParams',
      { field: 'utmParams.utm_source', operator: 'in', value: ['google', 'newsletter'] },
      ['ada', 'ben'],
    ],
    ['properties eq', { field: 'properties.plan', operator: 'eq', value: 'pro' }, ['ada', 'cy']],
    ['properties neq', { field: 'properties.plan', operator: 'neq', value: 'pro' }, ['ben', 'dan', 'eve']],
    [
      'properties in',
      { field: 'properties.plan', operator: 'in', value: ['free', 'pro'] },
      ['ada', 'ben', 'cy'],
    ],
    [
      'properties not_in',
      { field: 'properties.plan', operator: 'not_in', value: ['pro'] },
      ['ben', 'dan', 'eve'],
    ],
    // A property set to null exists (the Contact shows it).
    ['properties exists', { field: 'properties.plan', operator: 'exists' }, ['ada', 'ben', 'cy', 'dan']],
    [
      'properties not_exists',
      { field: 'properties.score', operator: 'not_exists' },
      ['ben', 'cy', 'dan', 'eve'],
    ],
    [
      'properties contains, % and _ as themselves',
      { field: 'properties.note', operator: 'contains', value: '0%_S' },
      ['cy'],
    ],
    ['properties starts_with', { field: 'properties.plan', operator: 'starts_with', value: 'fr' }, ['ben']],
    [
      'properties as text (no definition)',
      { field: 'properties.score', operator: 'gte', value: '7' },
      ['ada'],
    ],
  ])('searches %s', async (_, filter, expected) => {
    expect(await found([[filter]])).toEqual(expected);
  });

  it('searches by id', async () => {
    const ids = [byName.get('cy')!.id, byName.get('eve')!.id];
    expect(await found([[{ field: 'id', operator: 'in', value: ids }]])).toEqual(['cy', 'eve']);
    expect(await found([[{ field: 'id', operator: 'neq', value: ids[0] }]])).toEqual([
      'ada',
      'ben',
      'dan',
      'eve',
    ]);
  });

  it('compares a defined property by its type', async () => {
    for (const [name, type] of [
      ['seats', 'number'],
      ['trial', 'boolean'],
      ['renewal', 'date'],
    ]) {
      const res = await api.post(`/v1/funnels/${acme.funnelId}/properties`, { name, type });
      expect(res.status).toBe(201);
    }
    const values: [string, string, string][] = [
      ['ada', 'seats', '5'],
      ['ben', 'seats', '12'],
      ['cy', 'seats', '40'],
      ['ada', 'trial', 'true'],
      ['ben', 'trial', 'false'],
      ['ada', 'renewal', '2026-03-01'],
      ['ben', 'renewal', '2026-06-01'],
    ];
    for (const [who, fieldName, value] of values) {
      const res = await api.put(`/v1/funnels/${acme.funnelId}/contacts/${byName.get(who)!.id}/values`, {
        fieldName,
        value,
        skipAutomationTrigger: true,
      });
      expect(res.status).toBe(200);
    }
    // As numbers: 12 > 5 although "12" < "5" as text.
    expect(await found([[{ field: 'properties.seats', operator: 'gt', value: 10 }]])).toEqual(['ben', 'cy']);
    expect(await found([[{ field: 'properties.seats', operator: 'lte', value: 5 }]])).toEqual(['ada']);
    expect(await found([[{ field: 'properties.seats', operator: 'in', value: [5, 40] }]])).toEqual([
      'ada',
      'cy',
    ]);
    expect(await found([[{ field: 'properties.trial', operator: 'eq', value: true }]])).toEqual(['ada']);
    expect(await found([[{ field: 'properties.trial', operator: 'neq', value: true }]])).toEqual([
      'ben',
      'cy',
      'dan',
      'eve',
    ]);
    expect(await found([[{ field: 'properties.renewal', operator: 'lt', value: '2026-05-01' }]])).toEqual([
      'ada',
    ]);
    const wrong = await search([[{ field: 'properties.seats', operator: 'gt', value: '10' }]]);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('filterGroups[0].filters[0].value: properties.seats takes a finite number');
    const notForNumbers = await search([[{ field: 'properties.seats', operator: 'contains', value: '1' }]]);
    expect(notForNumbers.status).toBe(400);
    expect(notForNumbers.body.error).toMatch(/contains does not apply to properties\.seats \(number\)/);
    const badDate = await search([[{ field: 'properties.renewal', operator: 'gte', value: '1 May' }]]);
    expect(badDate.body.error).toMatch(/properties\.renewal takes a date in the form YYYY-MM-DD/);
  });

  it('ANDs the filters of a group and ORs the groups', async () => {
    const proInBerlin: Filter[] = [
      { field: 'properties.plan', operator: 'eq', value: 'pro' },
      { field: 'address.city', operator: 'eq', value: 'Berlin' },
    ];
    expect(await found([proInBerlin])).toEqual(['ada']);
    expect(await found([proInBerlin, [{ field: 'email', operator: 'starts_with', value: 'ben@' }]])).toEqual([
      'ada',
      'ben',
    ]);
    expect(
      await found([
        [{ field: 'status', operator: 'eq', value: 'converted' }],
        [{ field: 'email', operator: 'contains', value: 'example' }],
      ]),
    ).toEqual(['ada', 'ben', 'dan', 'eve']);
  });

  it('walks the matches by cursor in the sort order, without gaps or repeats', async () => {
    const groups = [[{ field: 'createdAt', operator: 'gte', value: iso(0) }]];
    const all = await search(groups, { sortField: 'email', sortOrder: 1, limit: 100 });
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await search(groups, {
        sortField: 'email',
        sortOrder: 1,
        limit: 2,
        ...(cursor ? { cursor } : {}),
      });
      expect(res.status).toBe(200);
      expect(res.body.meta.total).toBe(5);
      seen.push(...res.body.data.map((c: { id: string }) => c.id));
      cursor = res.body.meta.nextCursor;
      expect(res.body.meta.hasNext).toBe(cursor !== undefined);
      if (!cursor) break;
    }
    expect(seen).toEqual(all.body.data.map((c: { id: string }) => c.id));
    // Email ascending: the contact without an email first.
    expect(seen[0]).toBe(byName.get('dan')!.id);
  });

  it('refuses a cursor with other filters or another sort', async () => {
    const first = await search([[{ field: 'status', operator: 'eq', value: 'lead' }]], { limit: 1 });
    const cursor = first.body.meta.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));
    const other = await search([[{ field: 'status', operator: 'eq', value: 'converted' }]], {
      limit: 1,
      cursor,
    });
    expect(other.status).toBe(400);
    expect(other.body.error).toMatch(/cursor was made for another/);
    const list = await api.get(`/v1/funnels/${acme.funnelId}/contacts?limit=1`);
    const fromList = await search([], { limit: 1, cursor: list.body.meta.nextCursor });
    expect(fromList.status).toBe(400);
  });

  it.each<[string, unknown, RegExp]>([
    [
      'an unknown field',
      { filterGroups: [{ filters: [{ field: 'nickname', operator: 'eq', value: 'x' }] }] },
      /filterGroups\[0\]\.filters\[0\]\.field: "nickname" is not a searchable field/,
    ],
    [
      'an unknown meta member',
      { filterGroups: [{ filters: [{ field: 'meta.ps_nothing', operator: 'exists' }] }] },
      /"meta\.ps_nothing" is not a searchable field/,
    ],
    [
      'an invalid property name',
      { filterGroups: [{ filters: [{ field: 'properties.a b', operator: 'exists' }] }] },
      /"properties\.a b" is not a searchable field/,
    ],
    [
      'an unknown operator',
      { filterGroups: [{ filters: [{ field: 'email', operator: 'like', value: 'x' }] }] },
      /filterGroups\[0\]\.filters\[0\]\.operator: "like" is not an operator/,
    ],
    [
      'an operator the field does not take',
      { filterGroups: [{ filters: [{ field: 'createdAt', operator: 'contains', value: 'x' }] }] },
      /operator: contains does not apply to createdAt/,
    ],
    [
      'a date-time that is not one',
      { filterGroups: [{ filters: [{ field: 'createdAt', operator: 'gt', value: 'yesterday' }] }] },
      /value: createdAt takes an ISO 8601 date-time/,
    ],
    [
      'a number for a text field',
      { filterGroups: [{ filters: [{ field: 'properties.plan', operator: 'eq', value: 5 }] }] },
      /value: properties\.plan takes a non-empty string/,
    ],
    [
      'a string for a boolean',
      { filterGroups: [{ filters: [{ field: 'meta.ps_embed', operator: 'eq', value: 'true' }] }] },
      /value: meta\.ps_embed takes true or false/,
    ],
    [
      'in without an array',
      { filterGroups: [{ filters: [{ field: 'status', operator: 'in', value: 'lead' }] }] },
      /value: in on status takes an array/,
    ],
    [
      'exists with a value',
      { filterGroups: [{ filters: [{ field: 'email', operator: 'exists', value: 'x' }] }] },
      /value: exists takes no value/,
    ],
    [
      'an unknown member of a filter',
      { filterGroups: [{ filters: [{ field: 'email', operator: 'exists', op: 1 }] }] },
      /filters\[0\]\.op is not a recognised field/,
    ],
    [
      'six groups',
      {
        filterGroups: Array.from({ length: 6 }, () => ({
          filters: [{ field: 'email', operator: 'exists' }],
        })),
      },
      /at most 5/,
    ],
    [
      'eleven filters',
      {
        filterGroups: [
          { filters: Array.from({ length: 11 }, () => ({ field: 'email', operator: 'exists' })) },
        ],
      },
      /1 to 10/,
    ],
    ['an empty group', { filterGroups: [{ filters: [] }] }, /1 to 10/],
    ['limit 101', { limit: 101 }, /limit must be an integer from 1 to 100/],
    ['an unknown sort field', { sortField: 'city' }, /sortField must be one of/],
    ['an unknown member', { filters: [] }, /filters is not a recognised field/],
  ])('answers 400 naming %s', async (_, body, message) => {
    const res = await api.post(path, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(res.body.status).toBe(400);
  });

  it("answers 404 for another company's funnel and never shows its contacts", async () => {
    const res = await search([[{ field: 'properties.plan', operator: 'eq', value: 'pro' }]]);
    expect(namesOf(res.body.data)).toEqual(['ada', 'cy']);
    const other = await api.post(`/v1/funnels/${globex.funnelId}/contacts/search`, {});
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ error: 'Funnel not found', status: 404 });
  });

  it('serves a read-only key and refuses a key without crm:read', async () => {
    const reader = httpClient(t.baseUrl, await acme.keyFor('crm:read'));
    expect((await reader.post(path, {})).status).toBe(200);
    const writer = httpClient(t.baseUrl, await acme.keyFor('crm:write', 'metrics:read'));
    const res = await writer.post(path, {});
    expect(res.status).toBe(403);
    expect((await httpClient(t.baseUrl).post(path, {})).status).toBe(401);
  });
});
