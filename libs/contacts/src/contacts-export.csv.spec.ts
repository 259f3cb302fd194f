import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { csvCell, csvColumns, CsvRecordEnds, csvRow } from './contacts-export.csv';
import type { ContactView } from './contact.presenter';

describe('contacts export CSV', () => {
  it('quotes cells holding commas, quotes and line breaks', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('plain')).toBe('plain');
  });

  it.each(['=1+1', '+49 151', '-2', '@SUM(A1)', '\tcmd'])('keeps %j from being read as a formula', (text) => {
    expect(csvCell(text).replace(/^"/, '')).toMatch(/^'/);
  });

  it('writes missing values as empty cells and booleans as true/false', () => {
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(null)).toBe('');
    expect(csvCell(true)).toBe('true');
    expect(csvCell(12.5)).toBe('12.5');
  });

  it('puts dotted members in their columns', () => {
    const columns = csvColumns(['plan']);
    const contact = {
      id: 'c1',
      status: 'lead',
      email: 'ada@example.com',
      address: { city: 'Berlin' },
      meta: { ps_source: 'funnel', ps_embed: true },
      properties: { plan: 'pro' },
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-02T00:00:00.000Z',
      messages: [],
    } as unknown as ContactView;
    const cells = csvRow(contact, columns).trimEnd().split(',');
    const at = (column: string) => cells[columns.indexOf(column)];
    expect(at('email')).toBe('ada@example.com');
    expect(at('address.city')).toBe('Berlin');
    expect(at('meta.ps_source')).toBe('funnel');
    expect(at('meta.ps_embed')).toBe('true');
    expect(at('properties.plan')).toBe('pro');
    expect(at('phone')).toBe('');
    expect(at('updatedAt')).toBe('2026-01-02T00:00:00.000Z');
  });

  it('ends records with CRLF, keeping line breaks inside quoted cells, whatever the chunks', async () => {
    const copied = 'a,"two\nlines",b\n"say ""hi""",x\n"",\n';
    const expected = 'h\r\na,"two\nlines",b\r\n"say ""hi""",x\r\n"",\r\n';
    for (let size = 1; size <= copied.length; size++) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < copied.length; i += size) chunks.push(Buffer.from(copied.slice(i, i + size)));
      const out = await text(Readable.from(chunks).pipe(new CsvRecordEnds('h\r\n')));
      expect(out).toBe(expected);
    }
  });
});
