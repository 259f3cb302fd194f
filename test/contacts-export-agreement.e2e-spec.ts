import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { DataSource, type DeepPartial } from 'typeorm';
import {
  type Contact,
  csvRow,
  type ContactView,
  MESSAGE_STATUSES,
  META_BOOLEAN_KEYS,
  META_TEXT_KEYS,
  UTM_KEYS,
} from '@app/contacts';
import { startTestApp, TestApp } from './support/app';
import { insertContacts, insertMessage } from './support/contacts';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';

// The export writes the Contact in SQL (contacts-export.sql.ts) while GET …/contacts/{id} presents
// it in TypeScript (presentContact). For generated contacts of every shape, each exported NDJSON
// line equals the GET answer, and each CSV row equals the GET answer written as a CSV row.

/** Text that trips writers: CSV specials, formula starts, escapes, control characters, unicode. */
const tricky = fc.string({
  unit: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('a', 'Z', ' ', '1', '.') },
    {
      weight: 2,
      // COPY's text format escapes some of these (the NDJSON line is joined from its columns).
      arbitrary: fc.constantFrom(
        ',',
        '"',
        '\n',
        '\r',
        '=',
        '+',
        '-',
        '@',
        '\t',
        '\\',
        "'",
        '\u0001',
        '/',
        '\\N',
        '\b',
        '\f',
        '\v',
        '{}',
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom('é', 'ß', '漢', '🚀', '\u2028', 'Ω') },
  ),
  maxLength: 12,
});
const text = fc.oneof(fc.constant(null), fc.constant(''), tricky);
/** A number JavaScript writes in plain decimal notation (PostgreSQL writes those digits alike). */
const plainNumber = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc
    .double({ min: -1e9, max: 1e9, noNaN: true, noDefaultInfinity: true })
    .filter((n) => !String(n).includes('e')),
);
const propertyValue = fc.oneof(tricky, plainNumber, fc.boolean(), fc.constant(null));
const propertyName = fc.constantFrom('plan', 'score', 'opt-in', 'a.b', 'über', '1', 'x_y');
const anyTime = fc.date({ min: new Date('1990-01-01'), max: new Date('2090-01-01'), noInvalidDate: true });
/** Whole seconds too: PostgreSQL writes those without a fraction. */
const time = fc.oneof(
  anyTime,
  anyTime.map((d) => new Date(Math.floor(d.getTime() / 1000) * 1000)),
);

const contactArb = fc.record({
  status: fc.constantFrom('lead', 'converted', '=x, "y"'),
  email: text,
  phone: text,
  firstName: text,
  lastName: text,
  name: text,
  fullAddress: text,
  timezone: text,
  website: text,
  birthday: text,
  postalCode: text,
  city: text,
  state: text,
  country: text,
  street: text,
  houseNumber: text,
  convertedAt: fc.option(time),
  /** Microseconds added to convertedAt: its column keeps them, the API shows milliseconds. */
  convertedMicros: fc.integer({ min: 0, max: 999 }),
  meta: fc.dictionary(
    fc.constantFrom(...META_TEXT_KEYS, ...META_BOOLEAN_KEYS, 'ps_other'),
    fc.oneof(tricky, fc.boolean(), fc.constant(null)),
    { maxKeys: 4 },
  ),
  utmParams: fc.dictionary(fc.constantFrom(...UTM_KEYS), text, { maxKeys: 3 }),
  properties: fc.dictionary(propertyName, propertyValue, { maxKeys: 4 }),
  createdAt: time,
  messages: fc.array(
    fc.record({
      subject: text,
      content: tricky,
      status: fc.constantFrom(...MESSAGE_STATUSES),
      sentAt: fc.option(time),
      openedAt: fc.option(time),
      clicks: fc.nat(3),
      failure: fc.option(tricky),
    }),
    { maxLength: 2 },
  ),
});
type Generated = typeof contactArb extends fc.Arbitrary<infer T> ? T : never;

describe('Contacts export agrees with GET …/contacts/{id}', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let globex: TenantFixture;
  let api: ReturnType<typeof httpClient>;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    ds = t.app.get(DataSource);
    [acme, globex] = [await createTenant(t.app), await createTenant(t.app)];
    api = httpClient(t.baseUrl, acme.key);
  });
  afterAll(() => t.close());

  /** The funnel holds exactly `generated` as contacts, beside one erased and one of another company. */
  async function store(generated: Generated[]): Promise<Contact[]> {
    await ds.query('DELETE FROM contacts WHERE funnel_id = $1', [acme.funnelId]);
    const rows = generated.map(
      ({ convertedMicros: _, messages: __, ...row }) =>
        ({ ...row, updatedAt: row.createdAt }) as DeepPartial<Contact>,
    );
    const contacts = rows.length ? await insertContacts(t.app, acme, rows) : [];
    for (const [i, contact] of contacts.entries()) {
      const { messages, convertedMicros } = generated[i];
      for (const [n, m] of messages.entries())
        await insertMessage(t.app, contact, { ...m, createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, n)) });
      await ds.query(
        `UPDATE contacts SET converted_at = converted_at + $2 * interval '1 microsecond', updated_at = created_at
         WHERE id = $1`,
        [contact.id, convertedMicros],
      );
    }
    const [erased] = await insertContacts(t.app, acme, [{ email: 'erased@example.com' }]);
    expect((await api.send('DELETE', `/v1/funnels/${acme.funnelId}/contacts/${erased.id}`)).status).toBe(204);
    // A row of the funnel that names another company is not the company's to read.
    await insertContacts(t.app, { funnelId: acme.funnelId, companyId: globex.companyId }, [
      { email: 'other-company@example.com' },
    ]);
    return contacts;
  }

  async function exported(format: 'ndjson' | 'csv') {
    const res = await fetch(`${t.baseUrl}/v1/funnels/${acme.funnelId}/contacts/export?format=${format}`, {
      headers: { 'x-service-api-key': acme.key },
    });
    expect(res.status).toBe(200);
    return { headers: res.headers, text: await res.text() };
  }

  it('every NDJSON line and CSV row equals the contact as GET …/contacts/{id} answers it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(contactArb, { maxLength: 6 }), async (generated) => {
        const contacts = await store(generated);
        const views = new Map<string, ContactView>();
        for (const contact of contacts) {
          const res = await api.get(`/v1/funnels/${acme.funnelId}/contacts/${contact.id}`);
          expect(res.status).toBe(200);
          views.set(contact.id, res.body.data as ContactView);
        }

        const ndjson = await exported('ndjson');
        expect(ndjson.headers.get('x-export-count')).toBe(String(contacts.length));
        const lines = ndjson.text.split('\n');
        expect(lines.pop()).toBe('');
        const lineContacts = lines.map((line) => JSON.parse(line) as ContactView);
        expect(lineContacts.map((c) => c.id).sort()).toEqual([...views.keys()].sort());
        for (const contact of lineContacts) expect(contact).toStrictEqual(views.get(contact.id));

        const csv = await exported('csv');
        const [header, ...records] = parse(csv.text) as string[][];
        const properties = new Set(generated.flatMap((g) => Object.keys(g.properties)));
        expect(header.filter((c) => c.startsWith('properties.')).sort()).toEqual(
          [...properties].map((p) => `properties.${p}`).sort(),
        );
        expect(records.map((r) => r[0]).sort()).toEqual([...views.keys()].sort());
        for (const record of records) {
          const [expected] = parse(csvRow(views.get(record[0])!, header)) as string[][];
          expect(record).toEqual(expected);
        }
      }),
      { numRuns: 30 },
    );
  });
});
