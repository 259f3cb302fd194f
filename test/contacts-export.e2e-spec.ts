import { request, type IncomingMessage } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { DataSource, type DeepPartial } from 'typeorm';
import type { Contact } from '@app/contacts';
import { startTestApp, TestApp } from './support/app';
import { insertContacts, insertMessage, seedBulkContacts as seed } from './support/contacts';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { openStream, rawRequest } from './support/raw-request';

const readAll = (res: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString()));
    res.on('error', reject);
    res.resume();
  });

const exportsInProgress = async (ds: DataSource) =>
  Number(
    (
      await ds.query(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE '%contacts_export%' AND pid <> pg_backend_pid()
         AND state <> 'idle'`,
      )
    )[0].n,
  );

describe('GET /v1/funnels/{funnelId}/contacts/export', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let globex: TenantFixture;
  let big: TenantFixture;
  let api: ReturnType<typeof httpClient>;
  let path: string;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    ds = t.app.get(DataSource);
    [acme, globex, big] = [await createTenant(t.app), await createTenant(t.app), await createTenant(t.app)];
    api = httpClient(t.baseUrl, acme.key);
    path = `/v1/funnels/${acme.funnelId}/contacts/export`;
    const [ada] = await insertContacts(t.app, acme, [
      {
        email: 'ada@example.com',
        firstName: 'Ada',
        city: 'Berlin',
        meta: { ps_source: 'funnel', ps_embed: true },
        utmParams: { utm_source: 'google' },
        properties: { plan: 'pro', formula: '=HYPERLINK("http://evil")' },
      },
      {
        email: 'ben@example.com',
        firstName: 'Ben, "the" second',
        status: 'converted',
        properties: { seats: 3 },
      },
      { phone: '+49 151 222', lastName: 'Cy' },
    ]);
    await insertMessage(t.app, ada, { content: 'Welcome aboard' });
    await insertContacts(t.app, globex, [{ email: 'intruder@example.com' }]);
  });
  afterAll(() => t.close());

  it('streams one Contact per NDJSON line, exactly as the API shows it', async () => {
    const res = await api.get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers.get('x-export-count')).toBe('3');
    const lines = (res.body as string).split('\n');
    expect(lines.pop()).toBe('');
    const exported = lines.map((line) => JSON.parse(line) as { id: string });
    const list = await api.get(`/v1/funnels/${acme.funnelId}/contacts?limit=100`);
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
    expect([...exported].sort(byId)).toEqual([...list.body.data].sort(byId));
    expect(JSON.stringify(exported)).not.toContain('intruder');
  });

  it('writes each NDJSON line byte for byte: escapes, unicode, null and empty, meta, messages, times', async () => {
    const tenant = await createTenant(t.app);
    // Also stored values the API's own writes never leave: nulls in meta and utmParams, meta.ps_converted_at.
    const [full, bare, converted, kept] = await insertContacts(t.app, tenant, [
      {
        email: 'a\tb\nc\\d"e',
        phone: null,
        firstName: 'Zoë 漢 🚀 \u2028',
        lastName: '',
        name: '\\N',
        website: 'x\u0001y\bz\f\v',
        city: 'Köln\r',
        street: '',
        meta: { ps_source: 'fun\tnel "x"', ps_embed: true, ps_timezone: null },
        utmParams: { utm_source: 'g"o', utm_medium: '', utm_term: null },
        properties: { plan: 'p\\r"o', score: 1.5, 'opt-in': false, empty: null, '1': '{}' },
        convertedAt: new Date('2024-02-03T04:05:06.789Z'),
        createdAt: new Date('2024-01-01T00:00:00.000Z'),
      },
      { createdAt: new Date('2024-01-01T00:00:00.000Z') },
      {
        meta: { ps_converted_at: 'stale', ps_timezone: null },
        utmParams: { utm_source: '' },
        properties: { k: '' },
        convertedAt: new Date('2030-12-31T23:59:59.999Z'),
        createdAt: new Date('2024-01-01T00:00:00.000Z'),
      },
      {
        street: '\\',
        meta: { ps_converted_at: 'as stored' },
        createdAt: new Date('2024-01-01T00:00:00.000Z'),
      },
    ] as unknown as DeepPartial<Contact>[]);
    const welcome = await insertMessage(t.app, full, { content: 'line1\nline2\\', subject: '' });
    const hi = await insertMessage(t.app, full, {
      name: 'Hi\t"you"',
      content: 'é',
      subject: 'Sub\\ject',
      createdAt: new Date(Date.now() + 1000),
    });
    // converted_at keeps microseconds, which the API cuts off; updated_at (kept to the millisecond)
    // a whole second, 40 ms and 1 ms, which PostgreSQL writes as `00`, `00.04` and `00.001`. Written
    // past the trigger that sets updated_at to the time of the write.
    await ds.transaction(async (manager) => {
      await manager.query('SET LOCAL session_replication_role = replica');
      await manager.query(
        `UPDATE contacts SET converted_at = converted_at + interval '123 microseconds',
                updated_at = created_at + CASE WHEN id = $2 THEN interval '40 ms'
                                               WHEN id = $3 THEN interval '0' ELSE interval '1 ms' END
         WHERE funnel_id = $1`,
        [tenant.funnelId, full.id, bare.id],
      );
    });

    const res = await httpClient(t.baseUrl, tenant.key).get(`/v1/funnels/${tenant.funnelId}/contacts/export`);
    expect(res.status).toBe(200);
    const lines = new Map(
      (res.body as string)
        .split('\n')
        .filter(Boolean)
        .map((line) => [(JSON.parse(line) as { id: string }).id, line]),
    );
    expect(lines.size).toBe(4);
    expect(lines.get(full.id)).toBe(
      `{"id":"${full.id}","status":"lead","email":"a\\tb\\nc\\\\d\\"e","firstName":"Zoë 漢 🚀 \u2028",` +
        `"name":"\\\\N","website":"x\\u0001y\\bz\\f\\u000b","address":{"city":"Köln\\r"},` +
        `"meta":{"ps_converted_at":"2024-02-03T04:05:06.789Z", "ps_embed": true, "ps_source": "fun\\tnel \\"x\\""},` +
        `"utmParams":{"utm_source": "g\\"o"},` +
        `"properties":{"1": "{}", "plan": "p\\\\r\\"o", "empty": null, "score": 1.5, "opt-in": false},` +
        `"createdAt":"2024-01-01T00:00:00.000Z","updatedAt":"2024-01-01T00:00:00.040Z","messages":[` +
        `{"id":"${welcome.id}","name":"Welcome","type":"email","content":"line1\\nline2\\\\","status":"recorded","clicks":0}, ` +
        `{"id":"${hi.id}","name":"Hi\\t\\"you\\"","type":"email","content":"é","subject":"Sub\\\\ject",` +
        `"status":"recorded","clicks":0}]}`,
    );
    expect(lines.get(bare.id)).toBe(
      `{"id":"${bare.id}","status":"lead","createdAt":"2024-01-01T00:00:00.000Z",` +
        `"updatedAt":"2024-01-01T00:00:00.000Z","messages":[]}`,
    );
    expect(lines.get(converted.id)).toBe(
      `{"id":"${converted.id}","status":"lead","meta":{"ps_converted_at":"2030-12-31T23:59:59.999Z"},` +
        `"properties":{"k": ""},"createdAt":"2024-01-01T00:00:00.000Z",` +
        `"updatedAt":"2024-01-01T00:00:00.001Z","messages":[]}`,
    );
    expect(lines.get(kept.id)).toBe(
      `{"id":"${kept.id}","status":"lead","address":{"street":"\\\\"},"meta":{"ps_converted_at": "as stored"},` +
        `"createdAt":"2024-01-01T00:00:00.000Z","updatedAt":"2024-01-01T00:00:00.001Z","messages":[]}`,
    );
    // And each is the contact as GET …/contacts/{id} answers it.
    for (const [id, line] of lines) {
      const one = await httpClient(t.baseUrl, tenant.key).get(
        `/v1/funnels/${tenant.funnelId}/contacts/${id}`,
      );
      expect(JSON.parse(line)).toStrictEqual(one.body.data);
    }
  });

  it('writes CSV with a header of dotted columns, quoted and formula-safe cells', async () => {
    const res = await api.get(`${path}?format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const text = res.body as string;
    const [header, ...rows] = text.trimEnd().split('\r\n');
    const columns = header.split(',');
    expect(columns).toEqual(
      expect.arrayContaining([
        'id',
        'email',
        'address.city',
        'meta.ps_source',
        'utmParams.utm_source',
        'properties.formula',
        'properties.plan',
        'properties.seats',
        'createdAt',
      ]),
    );
    expect(rows).toHaveLength(3);
    expect(text).toContain('"Ben, ""the"" second"');
    expect(text).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(text).toContain("'+49 151 222");
    const ada = rows.find((r) => r.includes('ada@example.com'))!.split(',');
    expect(ada[columns.indexOf('address.city')]).toBe('Berlin');
    expect(ada[columns.indexOf('meta.ps_source')]).toBe('funnel');
    expect(ada[columns.indexOf('meta.ps_embed')]).toBe('true');
    expect(ada[columns.indexOf('properties.plan')]).toBe('pro');
  });

  it("applies the list's filters", async () => {
    const headers = { 'x-service-api-key': acme.key };
    const res = await rawRequest(t.baseUrl, 'GET', `${path}?status=converted`, headers);
    expect(res.headers['x-export-count']).toBe('1');
    const emails = res.body
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { email: string }).email);
    expect(emails).toEqual(['ben@example.com']);
    const byEmail = await rawRequest(t.baseUrl, 'GET', `${path}?format=csv&email=ADA@example.com`, headers);
    expect(byEmail.body.trimEnd().split('\r\n')).toHaveLength(2);
  });

  it('gzips when the client accepts it, and only then', async () => {
    const zipped = await new Promise<{ headers: IncomingMessage['headers']; body: Buffer }>(
      (resolve, reject) => {
        request(
          `${t.baseUrl}${path}`,
          { headers: { 'x-service-api-key': acme.key, 'accept-encoding': 'gzip' } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          },
        )
          .on('error', reject)
          .end();
      },
    );
    expect(zipped.headers['content-encoding']).toBe('gzip');
    const lines = gunzipSync(zipped.body).toString().trim().split('\n');
    expect(lines).toHaveLength(3);
    const plain = await rawRequest(t.baseUrl, 'GET', path, { 'x-service-api-key': acme.key });
    expect(plain.headers['content-encoding']).toBeUndefined();
    const refused = await rawRequest(t.baseUrl, 'GET', path, {
      'x-service-api-key': acme.key,
      'accept-encoding': 'gzip;q=0',
    });
    expect(refused.headers['content-encoding']).toBeUndefined();
  });

  it('answers 400 for an unknown format or filter, 404 for another company, 403 without crm:read', async () => {
    const format = await api.get(`${path}?format=xml`);
    expect(format.status).toBe(400);
    expect(format.body.error).toBe('format must be ndjson or csv');
    const filter = await api.get(`${path}?createdAfter=yesterday`);
    expect(filter.status).toBe(400);
    expect((await api.get(`${path}?page=2`)).status).toBe(400);
    const other = await api.get(`/v1/funnels/${globex.funnelId}/contacts/export`);
    expect(other.status).toBe(404);
    const reader = httpClient(t.baseUrl, await acme.keyFor('crm:read'));
    expect((await reader.get(path)).status).toBe(200);
    const writer = httpClient(t.baseUrl, await acme.keyFor('crm:write'));
    expect((await writer.get(path)).status).toBe(403);
  });

  it('reads one snapshot: writes made while the export streams are not in it', async () => {
    await seed(ds, big, 5000, 2000);
    const bigPath = `/v1/funnels/${big.funnelId}/contacts/export`;
    const res = await openStream(t.baseUrl, bigPath, { 'x-service-api-key': big.key });
    expect(res.statusCode).toBe(200);
    res.pause();
    // While the export is held back by the unread response, every contact changes and more arrive.
    await ds.query("UPDATE contacts SET first_name = 'Changed' WHERE funnel_id = $1", [big.funnelId]);
    await seed(ds, big, 100);
    await ds.query('DELETE FROM contacts WHERE funnel_id = $1 AND email LIKE $2', [big.funnelId, 'bulk1%']);
    // The export was still reading when they committed.
    expect(await exportsInProgress(ds)).toBe(1);
    const body = await readAll(res);
    const lines = body.trim().split('\n');
    expect(res.headers['x-export-count']).toBe('5000');
    expect(lines).toHaveLength(5000);
    const contacts = lines.map((l) => JSON.parse(l) as { firstName: string; email: string });
    expect(contacts.every((c) => c.firstName === 'Bulk')).toBe(true);
    expect(new Set(contacts.map((c) => c.email)).size).toBe(5000);
  });

  it('stops reading when the client goes away', async () => {
    const bigPath = `/v1/funnels/${big.funnelId}/contacts/export`;
    const res = await openStream(t.baseUrl, bigPath, { 'x-service-api-key': big.key });
    expect(res.statusCode).toBe(200);
    await new Promise((resolve) => res.once('data', resolve));
    res.pause();
    expect(await exportsInProgress(ds)).toBe(1);
    res.destroy();
    const deadline = Date.now() + 60_000;
    while ((await exportsInProgress(ds)) > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(await exportsInProgress(ds)).toBe(0);
  });

  it('cuts the connection, without the end of the body, when the database fails mid-stream', async () => {
    const bigPath = `/v1/funnels/${big.funnelId}/contacts/export`;
    const res = await openStream(t.baseUrl, bigPath, { 'x-service-api-key': big.key });
    expect(res.statusCode).toBe(200);
    await new Promise((resolve) => res.once('data', resolve));
    res.pause();
    await ds.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE query LIKE '%contacts_export%' AND pid <> pg_backend_pid()`,
    );
    const outcome = await new Promise<string>((resolve) => {
      res.on('error', () => resolve('cut'));
      res.on('end', () => resolve('complete'));
      res.resume();
    });
    expect(outcome).toBe('cut');
    // The service goes on serving.
    expect((await api.get(path)).status).toBe(200);
  });
});

describe('an export that lasts longer than DATABASE_STATEMENT_TIMEOUT_MS', () => {
  let t: TestApp;
  let tenant: TenantFixture;

  beforeAll(async () => {
    t = await startTestApp({ DATABASE_STATEMENT_TIMEOUT_MS: '1000' });
    tenant = await createTenant(t.app);
    await t.app.get(DataSource).transaction(async (manager) => {
      await manager.query('SET LOCAL statement_timeout = 0');
      await seed(manager, tenant, 5000, 2000);
    });
  });
  afterAll(() => t.close());

  it('is read to the end: the timeout bounds its first statements, not the COPY a slow client paces', async () => {
    const res = await openStream(t.baseUrl, `/v1/funnels/${tenant.funnelId}/contacts/export`, {
      'x-service-api-key': tenant.key,
    });
    expect(res.statusCode).toBe(200);
    res.pause();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const lines = (await readAll(res)).trim().split('\n');
    expect(lines).toHaveLength(5000);
    // The service goes on answering with the connection the export gave back.
    const list = await httpClient(t.baseUrl, tenant.key).get(
      `/v1/funnels/${tenant.funnelId}/contacts?limit=1`,
    );
    expect(list.status).toBe(200);
  });
});
