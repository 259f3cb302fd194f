import { Transform, type TransformCallback } from 'node:stream';
import { ADDRESS_FIELDS, CONTACT_TEXT_FIELDS } from './contact.presenter';

// The NDJSON export is built on two cores: PostgreSQL writes each contact's columns as COPY's text
// format (ndjsonColumns in contacts-export.sql.ts, cheap to write), and this process joins them
// into the Contact's line. Formatting the JSON in SQL kept one backend busy while this process
// mostly passed bytes on. presentContact stays the definition of the line;
// test/contacts-export-agreement.e2e-spec.ts holds the two to it.

/** Where each part of a contact stands in a COPY record (the order of ndjsonColumns). */
const ID = 0;
const STATUS = 1;
const TEXT = 2;
const ADDRESS = TEXT + CONTACT_TEXT_FIELDS.length;
const META = ADDRESS + ADDRESS_FIELDS.length;
const CONVERTED_AT = META + 1;
const UTM_PARAMS = CONVERTED_AT + 1;
const PROPERTIES = UTM_PARAMS + 1;
const CREATED_AT = PROPERTIES + 1;
const UPDATED_AT = CREATED_AT + 1;
const MESSAGES = UPDATED_AT + 1;
/** How many columns a record holds. */
export const NDJSON_COLUMN_COUNT = MESSAGES + 1;

/** COPY's text format writes NULL as this. */
const NULL = '\\N';
const TEXT_MEMBERS = CONTACT_TEXT_FIELDS.map((f) => `,"${f}":`);
const ADDRESS_MEMBERS = ADDRESS_FIELDS.map((f) => `,"${f}":`);
const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/**
 * A column's value as COPY's text format escapes it: a backslash before b f n r t v stands for
 * that control character, before anything else (a backslash itself) for that character.
 */
const unescape = (field: string) =>
  field.includes('\\') ? field.replace(/\\(.)/gs, (_, ch: string) => ESCAPES[ch] ?? ch) : field;

/** A text column as a JSON string; undefined when it holds no value (NULL or empty). */
const jsonText = (field: string) =>
  field === NULL || field === '' ? undefined : JSON.stringify(unescape(field));

/** A jsonb column's text (already JSON); undefined when NULL or an empty object. */
const jsonObject = (field: string) => (field === NULL || field === '{}' ? undefined : unescape(field));

/**
 * A timestamptz as a UTC session writes it (`2026-01-02 03:04:05.12+00`) as the presenter writes
 * it: ISO 8601 to the millisecond, the microseconds cut off as the driver cuts them.
 */
function isoTime(field: string): string {
  const space = field.indexOf(' ');
  const seconds = space + 9;
  let ms = '000';
  if (field.charCodeAt(seconds) === 0x2e) {
    const end = field.indexOf('+', seconds);
    ms = `${field.slice(seconds + 1, Math.min(end, seconds + 4))}00`.slice(0, 3);
  }
  return `${field.slice(0, space)}T${field.slice(space + 1, seconds)}.${ms}Z`;
}

/** One contact's NDJSON line (with its line break) from its COPY record's columns. */
export function ndjsonLine(f: readonly string[]): string {
  let line = `{"id":"${f[ID]}","status":${JSON.stringify(unescape(f[STATUS]))}`;
  for (let i = 0; i < TEXT_MEMBERS.length; i++) {
    const value = jsonText(f[TEXT + i]);
    if (value !== undefined) line += TEXT_MEMBERS[i] + value;
  }
  let address = '';
  for (let i = 0; i < ADDRESS_MEMBERS.length; i++) {
    const value = jsonText(f[ADDRESS + i]);
    if (value !== undefined) address += ADDRESS_MEMBERS[i] + value;
  }
  if (address) line += `,"address":{${address.slice(1)}}`;
  const meta = jsonObject(f[META]);
  if (f[CONVERTED_AT] !== NULL) {
    // ps_converted_at first (its column wins over a key of that name), then the rest of meta.
    const rest = meta === undefined ? '}' : `, ${meta.slice(1)}`;
    line += `,"meta":{"ps_converted_at":"${isoTime(f[CONVERTED_AT])}"${rest}`;
  } else if (meta !== undefined) line += `,"meta":${meta}`;
  const utmParams = jsonObject(f[UTM_PARAMS]);
  if (utmParams !== undefined) line += `,"utmParams":${utmParams}`;
  const properties = jsonObject(f[PROPERTIES]);
  if (properties !== undefined) line += `,"properties":${properties}`;
  const messages = f[MESSAGES] === NULL ? '[]' : unescape(f[MESSAGES]);
  return `${line},"createdAt":"${isoTime(f[CREATED_AT])}","updatedAt":"${isoTime(f[UPDATED_AT])}","messages":${messages}}\n`;
}

const LF = 0x0a;

/**
 * COPY's text output (one record a line, columns split by tabs, which the format escapes inside a
 * value) turned into NDJSON lines. A record cut by a chunk's end waits for the next chunk; a
 * multibyte character never holds the LF byte, so cutting at one never splits a character.
 */
export class NdjsonLines extends Transform {
  private rest: Buffer | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const bytes = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    const end = bytes.lastIndexOf(LF);
    if (end < 0) {
      this.rest = bytes;
      return done();
    }
    this.rest = end + 1 < bytes.length ? bytes.subarray(end + 1) : undefined;
    const text = bytes.toString('utf8', 0, end);
    let lines = '';
    for (let start = 0; start <= text.length;) {
      let lf = text.indexOf('\n', start);
      if (lf < 0) lf = text.length;
      const columns = text.slice(start, lf).split('\t');
      if (columns.length !== NDJSON_COLUMN_COUNT)
        return done(new Error(`an export record holds ${columns.length} columns`));
      lines += ndjsonLine(columns);
      start = lf + 1;
    }
    done(null, lines);
  }

  override _flush(done: TransformCallback): void {
    done(this.rest ? new Error('the export ended inside a record') : null);
  }
}
