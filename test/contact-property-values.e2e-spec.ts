import { DataSource } from 'typeorm';
import { countMatching, pageQueries, SearchValueType, validateSearch } from '@app/contacts';
import { startTestApp, TestApp } from './support/app';
import { insertContacts } from './support/contacts';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';

type Filter = { field: string; operator: string; value?: unknown };

/** A range of a number or date property is searched through contact_property_values' indexes. */
describe('Typed property values (range search)', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let globex: TenantFixture;
  let api: ReturnType<typeof httpClient>;
  let ds: DataSource;
  let contactsPath: string;
  let propertiesPath: string;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    t = await startTestApp();
    [acme, globex] = [await createTenant(t.app), await createTenant(t.app)];
    api = httpClient(t.baseUrl, acme.key);
    ds = t.app.get(DataSource);
    contactsPath = `/v1/funnels/${acme.funnelId}/contacts`;
    propertiesPath = `/v1/funnels/${acme.funnelId}/properties`;
  });
  afterAll(() => t.close());

  const define = async (funnelId: string, name: string, type: string, key = acme.key) => {
    const res = await httpClient(t.baseUrl, key).post(`/v1/funnels/${funnelId}/properties`, { name, type });
    expect(res.status).toBe(201);
  };
  const found = async (filters: Filter[]) => {
    const res = await api.post(`${contactsPath}/search`, { filterGroups: [{ filters }], limit: 100 });
    expect(res.status).toBe(200);
    expect(res.body.meta.total).toBe(res.body.data.length);
    return (res.body.data as { id: string }[])
      .map((c) => [...ids].find(([, id]) => id === c.id)?.[0] ?? c.id)
      .sort();
  };
  const typedRows = async (funnelId: string, name: string) =>
    Number(
      (
        await ds.query(
          'SELECT count(*) AS n FROM contact_property_values WHERE funnel_id = $1 AND property_name = $2',
          [funnelId, name],
        )
      )[0].n,
    );

  it('finds the edge values of a number and a date range, whichever door wrote them', async () => {
    // Values stored before the definitions: the definitions take them in.
    const [early] = await insertContacts(t.app, acme, [
      { email: 'early@example.com', properties: { score: '990', renewal: '2026-12-31' } },
    ]);
    ids.set('early', early.id);
    await define(acme.funnelId, 'score', 'number');
    await define(acme.funnelId, 'renewal', 'date');

    const batch = await api.post(`${contactsPath}/batch`, {
      skipAutomationTrigger: true,
      contacts: [
        { email: 'just-below@example.com', properties: { score: 989.999, renewal: '2027-01-01' } },
        { email: 'huge@example.com', properties: { score: 1e21 } },
        { email: 'negative@example.com', properties: { score: -0.5, renewal: '2024-02-29' } },
        { email: 'none@example.com', properties: { plan: 'pro' } },
      ],
    });
    expect(batch.status).toBe(200);
    for (const item of batch.body.data as { data: { id: string; email: string } }[])
      ids.set(item.data.email.split('@')[0], item.data.id);

    const created = await api.post(contactsPath, {
      email: 'patched@example.com',
      skipAutomationTrigger: true,
    });
    ids.set('patched', created.body.data.id);
    const patched = await api.send('PATCH', `${contactsPath}/${ids.get('patched')}`, {
      properties: { score: 0, renewal: '2026-01-01' },
    });
    expect(patched.status).toBe(200);
    const put = await api.put(`${contactsPath}/${ids.get('none')}/values`, {
      fieldName: 'score',
      value: '1000',
      skipAutomationTrigger: true,
    });
    expect(put.status).toBe(200);

    // Another company's funnel with the same definitions and values is never found.
    await define(globex.funnelId, 'score', 'number', globex.key);
    await insertContacts(t.app, globex, [{ email: 'other@example.com', properties: { score: 995 } }]);

    expect(await found([{ field: 'properties.score', operator: 'gte', value: 990 }])).toEqual([
      'early',
      'huge',
      'none',
    ]);
    expect(await found([{ field: 'properties.score', operator: 'gt', value: 990 }])).toEqual([
      'huge',
      'none',
    ]);
    expect(await found([{ field: 'properties.score', operator: 'lt', value: 990 }])).toEqual([
      'just-below',
      'negative',
      'patched',
    ]);
    expect(await found([{ field: 'properties.score', operator: 'lte', value: 0 }])).toEqual([
      'negative',
      'patched',
    ]);
    expect(await found([{ field: 'properties.renewal', operator: 'gte', value: '2026-12-31' }])).toEqual([
      'early',
      'just-below',
    ]);
    expect(await found([{ field: 'properties.renewal', operator: 'lt', value: '2026-01-01' }])).toEqual([
      'negative',
    ]);
    expect(
      await found([
        { field: 'properties.score', operator: 'gte', value: 0 },
        { field: 'properties.renewal', operator: 'lte', value: '2026-01-01' },
      ]),
    ).toEqual(['patched']);
  });

  it('follows a value changed, removed, and a contact erased', async () => {
    const gte990 = [{ field: 'properties.score', operator: 'gte', value: 990 }];
    await api.send('PATCH', `${contactsPath}/${ids.get('patched')}`, { properties: { score: 990 } });
    expect(await found(gte990)).toEqual(['early', 'huge', 'none', 'patched']);
    await api.send('PATCH', `${contactsPath}/${ids.get('huge')}`, { properties: { score: null } });
    expect((await api.send('DELETE', `${contactsPath}/${ids.get('early')}`)).status).toBe(204);
    expect(await found(gte990)).toEqual(['none', 'patched']);
    expect(await typedRows(acme.funnelId, 'score')).toBe(4);
  });

  it('never fails a write whose value does not fit, and leaves that value out', async () => {
    const [odd] = await insertContacts(t.app, acme, [
      { email: 'odd@example.com', properties: { score: 'high', renewal: '2026-02-30' } },
    ]);
    await ds.query(`UPDATE contacts SET properties = '{"score": "999", "renewal": "soon"}' WHERE id = $1`, [
      odd.id,
    ]);
    expect(await found([{ field: 'properties.score', operator: 'gte', value: 0 }])).not.toContain(odd.id);
    await ds.query('DELETE FROM contacts WHERE id = $1', [odd.id]);
  });

  it("answers the search's page and count from the typed values' indexes", async () => {
    // Enough contacts that reading every one would cost more than the index.
    await ds.query(
      `INSERT INTO contacts (funnel_id, company_id, status, email, properties)
       SELECT $1, $2, 'lead', 'bulk' || i || '@example.com',
              jsonb_build_object('score', i % 1000, 'renewal', to_char(date '2026-01-01' + i % 365, 'YYYY-MM-DD'))
       FROM generate_series(1, 20000) AS i`,
      [acme.funnelId, acme.companyId],
    );
    await ds.query('ANALYZE contacts');
    await ds.query('ANALYZE contact_property_values');
    const types = new Map<string, SearchValueType>([
      ['score', 'number'],
      ['renewal', 'date'],
    ]);
    for (const [filter, index] of [
      [{ field: 'properties.score', operator: 'gte', value: 990 }, 'idx_contact_property_values_number'],
      [
        { field: 'properties.renewal', operator: 'gt', value: '2026-12-30' },
        'idx_contact_property_values_date',
      ],
    ] as const) {
      const query = validateSearch({ filterGroups: [{ filters: [filter] }] }, types);
      const page = pageQueries(acme.funnelId, { ...query, page: 0 }, query.groups).first;
      const count = await countSql(acme.funnelId, query.groups);
      for (const statement of [page, count]) {
        const plan = await explain(statement.sql, statement.params);
        expect(plan).toContain(index);
        expect(plan).not.toMatch(/Seq Scan on contact_property_values/);
      }
    }
    const total = await api.post(`${contactsPath}/search`, {
      filterGroups: [{ filters: [{ field: 'properties.score', operator: 'gte', value: 990 }] }],
    });
    // 20 bulk contacts per value 990–999, plus "none" (1000) and "patched" (990).
    expect(total.body.meta.total).toBe(202);
  });

  it('drops the typed values with the definition, and rebuilds them on a change of type', async () => {
    expect(await typedRows(acme.funnelId, 'renewal')).toBeGreaterThan(0);
    const retyped = await api.send('PATCH', `${propertiesPath}/renewal`, { type: 'string' });
    expect(retyped.status).toBe(200);
    expect(await typedRows(acme.funnelId, 'renewal')).toBe(0);
    await api.send('PATCH', `${propertiesPath}/renewal`, { type: 'date' });
    expect(await typedRows(acme.funnelId, 'renewal')).toBe(20_003);

    expect((await api.send('DELETE', `${propertiesPath}/score`)).status).toBe(204);
    expect(await typedRows(acme.funnelId, 'score')).toBe(0);
    // The other funnel's definition of the same name keeps its values.
    expect(await typedRows(globex.funnelId, 'score')).toBe(1);
    // Without a definition the property compares as text again.
    const asText = await api.post(`${contactsPath}/search`, {
      filterGroups: [{ filters: [{ field: 'properties.score', operator: 'gte', value: 990 }] }],
    });
    expect(asText.status).toBe(400);
    expect(asText.body.error).toMatch(/properties\.score takes a non-empty string/);
  });

  async function explain(sql: string, params: unknown[]): Promise<string> {
    const rows: { 'QUERY PLAN': string }[] = await ds.query(`EXPLAIN (COSTS OFF) ${sql}`, params);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  /** countMatching's statement, as it sends it. */
  async function countSql(funnelId: string, groups: ReturnType<typeof validateSearch>['groups']) {
    let captured = { sql: '', params: [] as unknown[] };
    await countMatching(
      {
        query: (sql: string, params?: unknown[]) => {
          captured = { sql, params: params ?? [] };
          return Promise.resolve([{ count: '0' }]);
        },
      } as never,
      funnelId,
      groups,
    );
    return captured;
  }
});
