import fc from 'fast-check';
import { Client } from 'pg';
import { createTestDatabase } from '../../../../test/support/database';
import { arrayLiteral, columnArrays } from './column-arrays';

// The literals are checked on PostgreSQL itself: whatever the text, each row reads back as it was.
describe(columnArrays.name, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let client: Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    client = new Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  interface Row {
    key: string | null;
    count: number;
    at: number | null;
  }
  const rows = columnArrays<Row>([
    ['key', 'text', (r) => r.key],
    ['count', 'int', (r) => r.count],
    ['at', 'bigint', (r) => r.at],
  ]);
  const readBack = async (values: Row[]) =>
    (
      await client.query<Row>(
        // A lone function scan returns its rows in the arrays' order.
        `SELECT v.key, v.count, v.at::float8 AS at FROM ${rows.sql(1)}`,
        rows.values(values),
      )
    ).rows;

  // Text that array literals treat specially, and any other (PostgreSQL text holds no NUL).
  const special = fc.constantFrom('"', '\\', '{', '}', ',', ' ', 'NULL', 'null', '', '\t', '\n', '😀', "'");
  const text = fc
    .array(fc.oneof(special, fc.string({ unit: 'grapheme', maxLength: 3 })), { maxLength: 8 })
    .map((parts) => parts.join('').replace(/\0/g, 'x'));
  const row = fc.record({
    key: fc.option(text),
    count: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    at: fc.option(fc.maxSafeInteger()),
  });

  it('reads back every row exactly, in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 30 }), async (values) => {
        expect(await readBack(values)).toEqual(values);
      }),
      { numRuns: 200 },
    );
  });

  it('binds no rows as empty arrays', async () => {
    expect(rows.values([])).toEqual(['{}', '{}', '{}']);
    expect(await readBack([])).toEqual([]);
  });

  it('lets nothing but an integer into a number array', () => {
    expect(arrayLiteral('bigint', ['12', null, -3])).toBe('{12,NULL,-3}');
    expect(() => arrayLiteral('bigint', ['1},{2'])).toThrow('not an integer');
    expect(() => arrayLiteral('int', ['1.5'])).toThrow('not an integer');
  });
});
