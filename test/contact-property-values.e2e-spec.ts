import { Client } from 'pg';
import { DataSource } from 'typeorm';
import {
  ContactPropertyValuesFiller,
  countMatchingSql,
  pageQueries,
  SearchValueType,
  validateSearch,
} from '@app/contacts';
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
  let filler: ContactPropertyValuesFiller;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    // Small chunks, so a fill takes many of them.
    t = await startTestApp({ PROPERTY_VALUES_FILL_CHUNK: '500' });
    filler = t.app.get(ContactPropertyValuesFiller);
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
  /** The rows of the property's current generation, once the filler has nothing left to do. */
  const typedRows = async (funnelId: string, name: string) => {
    await filler.idle();
    return Number(
      (
        await ds.query(
          `SELECT count(*) AS n FROM contact_property_values v WHERE v.funnel_id = $1 AND v.property_name = $2
           AND v.generation = (SELECT values_generation FROM contact_property_definitions d
                               WHERE d.funnel_id = $1 AND d.name = $2)`,
          [funnelId, name],
        )
      )[0].n,
    );
  };

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
    await filler.idle();
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
      const copies = new Map(
        (
          (await ds.query(
            'SELECT name, values_generation AS g FROM contact_property_definitions WHERE funnel_id = $1 AND values_ready',
            [acme.funnelId],
          )) as { name: string; g: string }[]
        ).map((d) => [d.name, d.g]),
      );
      expect(copies.size).toBe(2);
      const query = validateSearch({ filterGroups: [{ filters: [filter] }] }, types, copies);
      const page = pageQueries(acme.funnelId, { ...query, page: 0 }, query.groups).first;
      const count = countMatchingSql(acme.funnelId, query.groups);
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
    expect(await allRows(acme.funnelId, 'renewal')).toBe(0);
    await api.send('PATCH', `${propertiesPath}/renewal`, { type: 'date' });
    expect(await typedRows(acme.funnelId, 'renewal')).toBe(20_003);

    expect((await api.send('DELETE', `${propertiesPath}/score`)).status).toBe(204);
    expect(await allRows(acme.funnelId, 'score')).toBe(0);
    // The other funnel's definition of the same name keeps its values.
    expect(await typedRows(globex.funnelId, 'score')).toBe(1);
    // Without a definition the property compares as text again.
    const asText = await api.post(`${contactsPath}/search`, {
      filterGroups: [{ filters: [{ field: 'properties.score', operator: 'gte', value: 990 }] }],
    });
    expect(asText.status).toBe(400);
    expect(asText.body.error).toMatch(/properties\.score takes a non-empty string/);
  });

  /** The funnel's contacts holding `name` as a number, as the copy should hold them, by search. */
  const searchIds = async (field: string, operator: string, value: unknown) => {
    const res = await api.post(`${contactsPath}/search`, {
      filterGroups: [{ filters: [{ field: `properties.${field}`, operator, value }] }],
      limit: 100,
    });
    expect(res.status).toBe(200);
    return {
      total: res.body.meta.total as number,
      ids: (res.body.data as { id: string }[]).map((c) => c.id).sort(),
    };
  };
  const expectedIds = async (name: string, min: number) =>
    (
      (await ds.query(
        `SELECT id FROM contacts WHERE funnel_id = $1 AND jsonb_typeof(properties -> $2::text) = 'number'
         AND (properties ->> $2::text)::numeric >= $3 ORDER BY updated_at DESC, id DESC LIMIT 100`,
        [acme.funnelId, name, min],
      )) as { id: string }[]
    )
      .map((r) => r.id)
      .sort();
  const readiness = async (funnelId: string, name: string) =>
    (
      (await ds.query(
        'SELECT values_ready AS ready, values_generation AS generation FROM contact_property_definitions WHERE funnel_id = $1 AND name = $2',
        [funnelId, name],
      )) as { ready: boolean; generation: string }[]
    )[0];
  /** The copy of the property's current generation against the values recomputed from contacts. */
  const copyDiff = async (funnelId: string, name: string) =>
    Number(
      (
        await ds.query(
          `WITH d AS (SELECT values_generation AS g FROM contact_property_definitions WHERE funnel_id = $1 AND name = $2),
           copy AS (SELECT v.contact_id, v.number_value FROM contact_property_values v, d
                    WHERE v.funnel_id = $1 AND v.property_name = $2 AND v.generation = d.g),
           truth AS (SELECT c.id AS contact_id, contact_property_number('number', c.properties -> $2::text) AS number_value
                     FROM contacts c WHERE c.funnel_id = $1 AND contact_property_number('number', c.properties -> $2::text) IS NOT NULL)
           SELECT count(*) AS n FROM ((SELECT * FROM copy EXCEPT SELECT * FROM truth) UNION ALL
                                      (SELECT * FROM truth EXCEPT SELECT * FROM copy)) x`,
          [funnelId, name],
        )
      )[0].n,
    );
  const bulkLevels = (name: string, count: number) =>
    ds.query(
      `INSERT INTO contacts (funnel_id, company_id, status, email, properties)
       SELECT $1, $2, 'lead', $3 || i || '@example.com', jsonb_build_object($3::text, i % 100)
       FROM generate_series(1, $4::int) AS i`,
      [acme.funnelId, acme.companyId, name, count],
    );

  it('answers a definition before its values are copied, and searches them right before and after', async () => {
    await bulkLevels('level', 3000);
    await filler.stop();
    try {
      await define(acme.funnelId, 'level', 'number');
      expect(await readiness(acme.funnelId, 'level')).toMatchObject({ ready: false });
      expect(await typedRows(acme.funnelId, 'level')).toBe(0);
      const expected = await expectedIds('level', 98);
      const before = await searchIds('level', 'gte', 98);
      expect(before.total).toBe(60);
      expect(before.ids).toEqual(expected);
      // A write meanwhile is copied by its trigger from the start.
      const [late] = await insertContacts(t.app, acme, [
        { email: 'late@example.com', properties: { level: 99 } },
      ]);
      expect(await typedRows(acme.funnelId, 'level')).toBe(1);
      expect((await searchIds('level', 'gte', 98)).total).toBe(61);
      await ds.query('DELETE FROM contacts WHERE id = $1', [late.id]);
    } finally {
      filler.start();
    }
    expect(await typedRows(acme.funnelId, 'level')).toBe(3000);
    expect(await readiness(acme.funnelId, 'level')).toMatchObject({ ready: true });
    expect(await copyDiff(acme.funnelId, 'level')).toBe(0);
    const after = await searchIds('level', 'gte', 98);
    expect(after.total).toBe(60);
    expect(after.ids).toEqual(await expectedIds('level', 98));
  });

  it('ends a fill with writes racing it equal to the values recomputed from the contacts', async () => {
    await bulkLevels('rank', 4000);
    await filler.stop();
    try {
      await define(acme.funnelId, 'rank', 'number');
      const ids: string[] = (
        await ds.query(
          `SELECT id FROM contacts WHERE funnel_id = $1 AND properties ? 'rank' ORDER BY random()`,
          [acme.funnelId],
        )
      ).map((r: { id: string }) => r.id);
      const fill = (async () => {
        while (await filler.fillChunk({ funnel_id: acme.funnelId, name: 'rank' }));
      })();
      // Changes, removals, deletions and new contacts, each its own transaction, while the chunks run.
      const writes = (async () => {
        for (let i = 0; i < 120; i++) {
          const id = ids[i];
          if (i % 4 === 0)
            await ds.query(`UPDATE contacts SET properties = properties || '{"rank": 1000}' WHERE id = $1`, [
              id,
            ]);
          else if (i % 4 === 1)
            await ds.query(`UPDATE contacts SET properties = properties - 'rank' WHERE id = $1`, [id]);
          else if (i % 4 === 2) await ds.query('DELETE FROM contacts WHERE id = $1', [id]);
          else
            await insertContacts(t.app, acme, [
              { email: `racer${i}@example.com`, properties: { rank: 1000 + i } },
            ]);
        }
      })();
      await Promise.all([fill, writes]);
      expect((await readiness(acme.funnelId, 'rank')).ready).toBe(true);
      expect(await copyDiff(acme.funnelId, 'rank')).toBe(0);
      expect((await searchIds('rank', 'gte', 1000)).ids).toEqual(await expectedIds('rank', 1000));
    } finally {
      filler.start();
    }
  });

  it('leaves no stale value visible after a change of type, or a deletion and a definition of the same name', async () => {
    const [held, cleared] = await insertContacts(t.app, acme, [
      { email: 'held@example.com', properties: { tier: 7 } },
      { email: 'cleared@example.com', properties: { tier: 9 } },
    ]);
    await define(acme.funnelId, 'tier', 'number');
    expect(await typedRows(acme.funnelId, 'tier')).toBe(2);
    await filler.stop();
    try {
      // Deleted: a change then reaches no trigger, so the old row of `cleared` stays until removed.
      expect((await api.send('DELETE', `${propertiesPath}/tier`)).status).toBe(204);
      await ds.query(`UPDATE contacts SET properties = properties - 'tier' WHERE id = $1`, [cleared.id]);
      await define(acme.funnelId, 'tier', 'number');
      const gen2 = (await readiness(acme.funnelId, 'tier')).generation;
      expect((await searchIds('tier', 'gte', 0)).ids).toEqual([held.id]);
      while (await filler.fillChunk({ funnel_id: acme.funnelId, name: 'tier' }));
      // Ready, the old generation's row still there: the search reads only the current one.
      expect((await readiness(acme.funnelId, 'tier')).ready).toBe(true);
      expect(await allRows(acme.funnelId, 'tier')).toBe(2);
      expect((await searchIds('tier', 'gte', 0)).ids).toEqual([held.id]);
      expect((await searchIds('tier', 'gte', 9)).total).toBe(0);

      // A change of type and back: a new generation each time.
      expect((await api.send('PATCH', `${propertiesPath}/tier`, { type: 'string' })).status).toBe(200);
      expect((await api.send('PATCH', `${propertiesPath}/tier`, { type: 'number' })).status).toBe(200);
      expect((await readiness(acme.funnelId, 'tier')).generation).not.toBe(gen2);
      expect((await searchIds('tier', 'gte', 0)).ids).toEqual([held.id]);
    } finally {
      filler.start();
    }
    // The filler then removes every ended generation's rows.
    expect(await allRows(acme.funnelId, 'tier')).toBe(1);
    expect(await typedRows(acme.funnelId, 'tier')).toBe(1);
    expect((await searchIds('tier', 'gte', 0)).ids).toEqual([held.id]);
    const retired = await ds.query(
      'SELECT * FROM contact_property_values_retired WHERE funnel_id = $1 AND property_name = $2',
      [acme.funnelId, 'tier'],
    );
    expect(retired).toEqual([]);
  });

  it('keeps typed and unique values right when one statement changes many contacts', async () => {
    const g = httpClient(t.baseUrl, globex.key);
    const path = `/v1/funnels/${globex.funnelId}`;
    expect((await g.post(`${path}/properties`, { name: 'tally', type: 'number' })).status).toBe(201);
    expect((await g.post(`${path}/properties`, { name: 'ref', type: 'string', unique: true })).status).toBe(
      201,
    );
    const batch = (contacts: object[]) => g.post(`${path}/contacts/batch`, { contacts, upsertBy: 'email' });
    const email = (i: number) => `many${i}@example.com`;
    const created = await batch(
      [0, 1, 2, 3].map((i) => ({ email: email(i), properties: { tally: i, ref: `r${i}` } })),
    );
    expect(created.body.data.map((d: { status: number }) => d.status)).toEqual([201, 201, 201, 201]);
    /** Unique values kept against those recomputed from the contacts. */
    const uniqueDiff = async () =>
      Number(
        (
          await ds.query(
            `WITH kept AS (SELECT contact_id, value_key FROM contact_unique_values WHERE funnel_id = $1 AND property_name = 'ref'),
             truth AS (SELECT id AS contact_id, sha256(convert_to(properties ->> 'ref', 'UTF8')) AS value_key
                       FROM contacts WHERE funnel_id = $1 AND properties ->> 'ref' IS NOT NULL)
             SELECT count(*) AS n FROM ((SELECT * FROM kept EXCEPT SELECT * FROM truth) UNION ALL
                                        (SELECT * FROM truth EXCEPT SELECT * FROM kept)) x`,
            [globex.funnelId],
          )
        )[0].n,
      );
    const settled = async () => {
      await filler.idle();
      expect(await copyDiff(globex.funnelId, 'tally')).toBe(0);
      expect(await uniqueDiff()).toBe(0);
    };
    await settled();

    // One batch: three contacts change (one loses its number), one only changes its name.
    const updated = await batch([
      { email: email(0), properties: { tally: 100, ref: 'r0-new' } },
      { email: email(1), properties: { tally: null, ref: 'r1-new' } },
      { email: email(2), properties: { tally: 102 } },
      { email: email(3), firstName: 'Only' },
    ]);
    expect(updated.body.data.map((d: { status: number }) => d.status)).toEqual([200, 200, 200, 200]);
    await settled();
    expect(await allRows(globex.funnelId, 'tally')).toBe(3);

    // Plain SQL: one statement over all four contacts, then one touching no property.
    const four = `funnel_id = $1 AND email LIKE 'many%'`;
    await ds.query(`UPDATE contacts SET properties = properties || '{"tally": 7}' WHERE ${four}`, [
      globex.funnelId,
    ]);
    await ds.query(`UPDATE contacts SET first_name = 'Renamed' WHERE ${four}`, [globex.funnelId]);
    await settled();
    expect(await allRows(globex.funnelId, 'tally')).toBe(4);

    // The values given up are free again; the ones taken are refused.
    const reuse = await batch([
      { email: email(10), properties: { ref: 'r0' } },
      { email: email(11), properties: { ref: 'r1-new' } },
    ]);
    expect(reuse.body.data.map((d: { status: number }) => d.status)).toEqual([201, 409]);
    await settled();
  });

  it('keeps them right when one connection updates one contact, then 5,000 in one statement', async () => {
    // The update trigger's joins of old and new rows are planned on each run: a plan kept from the
    // one-row update would compare 25 million pairs. The plans the triggers' statements ran with
    // show it whatever the machine's speed: each reads the transition tables as 5,000 rows.
    const initech = await createTenant(t.app);
    await define(initech.funnelId, 'points', 'number', initech.key);
    const unique = await httpClient(t.baseUrl, initech.key).post(
      `/v1/funnels/${initech.funnelId}/properties`,
      {
        name: 'code',
        type: 'string',
        unique: true,
      },
    );
    expect(unique.status).toBe(201);
    await ds.query(
      `INSERT INTO contacts (funnel_id, company_id, status, email, converted_at, meta, properties)
       SELECT $1, $2, 'lead', 'bulk' || i || '@example.com', now(), '{}', jsonb_build_object('points', i, 'code', 'c' || i)
       FROM generate_series(1, 5000) AS i`,
      [initech.funnelId, initech.companyId],
    );
    // Plain SQL on a connection of its own, as an operator's: the service's statement timeout bounds
    // its requests, not this, and auto_explain stays on a connection the app never reuses.
    const operator = new Client({ connectionString: t.databaseUrl });
    await operator.connect();
    const plans: string[] = [];
    try {
      await operator.query(
        `UPDATE contacts SET properties = properties || '{"points": -1, "code": "one"}'
         WHERE funnel_id = $1 AND email = 'bulk1@example.com'`,
        [initech.funnelId],
      );
      await operator.query(`LOAD 'auto_explain'`);
      await operator.query(
        `SET statement_timeout = 0; SET auto_explain.log_min_duration = 0;
         SET auto_explain.log_nested_statements = on; SET auto_explain.log_level = notice`,
      );
      operator.on('notice', (notice) => plans.push(notice.message ?? ''));
      await operator.query(
        `UPDATE contacts SET properties = properties || jsonb_build_object('points', 7, 'code', 'n' || email)
         WHERE funnel_id = $1`,
        [initech.funnelId],
      );
      // The checks below join 5,000 contacts to their values: with statistics taken before the
      // insert they would be planned as 25 million pairs. Take them now, as autovacuum would later.
      await operator.query('ANALYZE contacts, contact_unique_values, contact_property_values');
    } finally {
      await operator.end();
    }
    const transitionScans = plans.flatMap((plan) => [
      ...plan.matchAll(/Named Tuplestore Scan {2}\(cost=\S+ rows=(\d+)/g),
    ]);
    expect(transitionScans.length).toBeGreaterThanOrEqual(2);
    expect(new Set(transitionScans.map((scan) => Number(scan[1])))).toEqual(new Set([5000]));
    await filler.idle();
    expect(await copyDiff(initech.funnelId, 'points')).toBe(0);
    expect(await allRows(initech.funnelId, 'points')).toBe(5000);
    const [{ kept, right }]: { kept: string; right: string }[] = await ds.query(
      `SELECT count(*) AS kept, count(*) FILTER (WHERE u.value_key = sha256(convert_to(c.properties ->> 'code', 'UTF8'))) AS right
       FROM contact_unique_values u JOIN contacts c ON c.id = u.contact_id AND c.funnel_id = u.funnel_id
       WHERE u.funnel_id = $1 AND u.property_name = 'code'`,
      [initech.funnelId],
    );
    expect([Number(kept), Number(right)]).toEqual([5000, 5000]);
  });

  /** Every row of the property, of any generation, once the filler has nothing left to do. */
  async function allRows(funnelId: string, name: string): Promise<number> {
    await filler.idle();
    const [{ n }]: { n: string }[] = await ds.query(
      'SELECT count(*) AS n FROM contact_property_values WHERE funnel_id = $1 AND property_name = $2',
      [funnelId, name],
    );
    return Number(n);
  }

  async function explain(sql: string, params: unknown[]): Promise<string> {
    const rows: { 'QUERY PLAN': string }[] = await ds.query(`EXPLAIN (COSTS OFF) ${sql}`, params);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }
});
