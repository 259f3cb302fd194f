import { Transform, type TransformCallback } from 'node:stream';
import { ADDRESS_FIELDS, CONTACT_VALUE_FIELDS, type ContactView } from './contact.presenter';
import { META_BOOLEAN_KEYS, META_TEXT_KEYS, UTM_KEYS } from './contacts-search.fields';

// A spreadsheet runs a cell starting with one of these as a formula (CSV injection).
const FORMULA_START = /^[=+\-@\t\r]/;

/** The CSV columns of an export: the Contact's members, dotted, with the properties found. */
export function csvColumns(propertyNames: readonly string[]): string[] {
  return [
    ...CONTACT_VALUE_FIELDS,
    ...ADDRESS_FIELDS.map((f) => `address.${f}`),
    'meta.ps_converted_at',
    ...[...META_TEXT_KEYS, ...META_BOOLEAN_KEYS].map((k) => `meta.${k}`),
    ...UTM_KEYS.map((k) => `utmParams.${k}`),
    ...[...propertyNames].sort().map((name) => `properties.${name}`),
    'createdAt',
    'updatedAt',
  ];
}

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, quote or line break. A text that a
 * spreadsheet would read as a formula is prefixed with `'`, so it stays text.
 */
export function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  let text = typeof value === 'string' ? value : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(cells: readonly unknown[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** The contact's row under `columns` (messages are left out: NDJSON carries them). */
export function csvRow(contact: ContactView, columns: readonly string[]): string {
  const record = contact as unknown as Record<string, unknown>;
  return csvLine(
    columns.map((column) => {
      const dot = column.indexOf('.');
      if (dot < 0) return record[column];
      const member = record[column.slice(0, dot)] as Record<string, unknown> | undefined;
      return member?.[column.slice(dot + 1)];
    }),
  );
}

const QUOTE = 0x22;
const LF = 0x0a;
const CRLF = Buffer.from('\r\n');

/**
 * COPY's CSV output made RFC 4180's: `header` first, then each record ended by CRLF instead of LF.
 * A line break inside a quoted cell stays as it is: the quotes seen so far tell which is which
 * (a doubled quote toggles twice), across chunk boundaries too.
 */
export class CsvRecordEnds extends Transform {
  private quoted = false;

  constructor(header: string) {
    super();
    this.push(header);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const parts: Buffer[] = [];
    let start = 0;
    let quote = chunk.indexOf(QUOTE);
    for (let lf = chunk.indexOf(LF); lf >= 0; lf = chunk.indexOf(LF, lf + 1)) {
      for (; quote >= 0 && quote < lf; quote = chunk.indexOf(QUOTE, quote + 1)) this.quoted = !this.quoted;
      if (this.quoted) continue;
      parts.push(chunk.subarray(start, lf), CRLF);
      start = lf + 1;
    }
    for (; quote >= 0; quote = chunk.indexOf(QUOTE, quote + 1)) this.quoted = !this.quoted;
    parts.push(chunk.subarray(start));
    done(null, Buffer.concat(parts));
  }
}
