import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { NDJSON_COLUMN_COUNT, NdjsonLines } from './contacts-export.ndjson';

/** A COPY text record: NULL everywhere but the columns given (by position). */
function record(columns: Record<number, string>): string {
  const all = Array.from({ length: NDJSON_COLUMN_COUNT }, (_, i) => columns[i] ?? '\\N');
  return `${all.join('\t')}\n`;
}

const ID = '0b6c1a3e-2f4d-4e5a-9b7c-8d9e0f1a2b3c';
const CREATED = NDJSON_COLUMN_COUNT - 3;
const lastColumns = { [CREATED]: '2024-01-01 00:00:00+00', [CREATED + 1]: '2024-01-01 00:00:00.5+00' };

describe(NdjsonLines.name, () => {
  it('joins records into lines whatever the chunks, escapes and multibyte characters cut by them', async () => {
    const copied = Buffer.from(
      record({ 0: ID, 1: 'lead', 2: 'a\\tb\\nc\\\\d"e \\\\N 漢🚀', 3: '', ...lastColumns }) +
        record({ 0: ID, 1: 'lead', ...lastColumns, [CREATED + 2]: '[{"id" : "m", "content" : "x\\\\ty"}]' }),
    );
    const expected =
      `{"id":"${ID}","status":"lead","email":"a\\tb\\nc\\\\d\\"e \\\\N 漢🚀",` +
      `"createdAt":"2024-01-01T00:00:00.000Z","updatedAt":"2024-01-01T00:00:00.500Z","messages":[]}\n` +
      `{"id":"${ID}","status":"lead","createdAt":"2024-01-01T00:00:00.000Z",` +
      `"updatedAt":"2024-01-01T00:00:00.500Z","messages":[{"id" : "m", "content" : "x\\ty"}]}\n`;
    for (let size = 1; size <= copied.length; size += size < 40 ? 1 : 97) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < copied.length; i += size) chunks.push(copied.subarray(i, i + size));
      expect(await text(Readable.from(chunks).pipe(new NdjsonLines()))).toBe(expected);
    }
  });

  it('writes timestamps to the millisecond, cutting microseconds, with or without a fraction', async () => {
    const times = [
      ['2024-02-03 04:05:06+00', '2024-02-03T04:05:06.000Z'],
      ['2024-02-03 04:05:06.1+00', '2024-02-03T04:05:06.100Z'],
      ['2024-02-03 04:05:06.04+00', '2024-02-03T04:05:06.040Z'],
      ['2024-02-03 04:05:06.999999+00', '2024-02-03T04:05:06.999Z'],
      ['0900-12-31 23:59:59.000123+00', '0900-12-31T23:59:59.000Z'],
    ];
    for (const [copied, iso] of times) {
      const line = await text(
        Readable.from([
          Buffer.from(record({ 0: ID, 1: 'lead', [CREATED]: copied, [CREATED + 1]: copied })),
        ]).pipe(new NdjsonLines()),
      );
      expect(JSON.parse(line)).toMatchObject({ createdAt: iso, updatedAt: iso });
    }
  });

  it('fails on a record that is not the export columns, and on a body cut inside a record', async () => {
    await expect(text(Readable.from([Buffer.from('a\tb\n')]).pipe(new NdjsonLines()))).rejects.toThrow(
      'an export record holds 2 columns',
    );
    await expect(
      text(Readable.from([Buffer.from(record({ 0: ID }).slice(0, 20))]).pipe(new NdjsonLines())),
    ).rejects.toThrow('the export ended inside a record');
  });
});
