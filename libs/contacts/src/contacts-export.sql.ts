import { escapeIdentifier, escapeLiteral } from 'pg';
import { ADDRESS_FIELDS, CONTACT_TEXT_FIELDS } from './contact.presenter';
import type { Placeholder } from './contacts-search.sql';

// The Contact of the API written by PostgreSQL itself, so that an export streams the lines as
// COPY produces them instead of reading rows into the driver and presenting them one by one.
// presentContact (contact.presenter.ts) stays the definition of the shape; these expressions
// follow it member by member, and test/contacts-export-agreement.e2e-spec.ts holds them to it.

/** The column of contact `c` behind a member of the entity (`houseNumber` -> `c.house_number`). */
const column = (member: string) => `c.${member.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`)}`;

/** What the export's session sets first: timestamps are written in UTC (see isoTime). */
export const EXPORT_SESSION_SETTINGS = "SET LOCAL TimeZone = 'UTC'";

/**
 * A timestamp as the presenter writes it: ISO 8601 in UTC to the millisecond, the microseconds cut
 * off as the driver cuts them when it reads a timestamptz into a Date. The session's time zone is
 * UTC (EXPORT_SESSION_SETTINGS), which spares a zone conversion per value.
 */
const isoTime = (e: string) => `to_char(${e}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A member of the object being written, as `,"name":<json>`; NULL (left out) when `json` is NULL. */
const member = (name: string, json: string) => `',"${name}":' || (${json})::text`;

/** jsonb object `e` without its members whose value is JSON null or `""`; NULL when none is left. */
const withValues = (e: string) =>
  `CASE WHEN ${e} @? '$.* ? (@ == null || @ == "")'
        THEN (SELECT jsonb_object_agg(k, v) FROM jsonb_each(${e}) AS x(k, v) WHERE v <> 'null' AND v <> '""')
        ELSE nullif(${e}, '{}') END`;

/**
 * `meta` as presentContact shows it: members that are not null, and ps_converted_at from its
 * column (written first, then the rest of the object's text, so no second object is built).
 */
const META = `CASE WHEN c.converted_at IS NULL THEN nullif(jsonb_strip_nulls(c.meta), '{}')::text
    ELSE '{"ps_converted_at":"' || ${isoTime('c.converted_at')} || '"' || coalesce(', ' || nullif(substr(
      jsonb_strip_nulls(CASE WHEN c.meta ? 'ps_converted_at' THEN c.meta - 'ps_converted_at' ELSE c.meta END)::text,
      2), '}'), '}') END`;

/** The address parts that hold a value, as text; NULL when none does. */
const ADDRESS = `'{' || substr(nullif(concat(${ADDRESS_FIELDS.map((f) => member(f, `to_json(nullif(${column(f)}, ''))`)).join(', ')}), ''), 2) || '}'`;

/** The messages of contact `c`, oldest first, `subject` only when it holds a value. */
const MESSAGES = `coalesce((
    SELECT json_agg(CASE WHEN coalesce(m.subject, '') = ''
                         THEN json_build_object('id', m.id, 'name', m.name, 'type', m.type, 'content', m.content)
                         ELSE json_build_object('id', m.id, 'name', m.name, 'type', m.type, 'content', m.content,
                                                'subject', m.subject) END
                    ORDER BY m.created_at, m.id)
    FROM contact_messages m WHERE m.contact_id = c.id AND m.funnel_id = c.funnel_id), '[]')`;

/**
 * One NDJSON line of contact `c` as text (without its line break): the Contact as GET
 * …/contacts/{id} answers it, members in the same order; `meta`, `utmParams`, `properties` and
 * `address` hold their members in PostgreSQL's jsonb order, which JSON does not tell apart.
 */
export const NDJSON_LINE = `concat(
    '{"id":"', c.id, '","status":', to_json(c.status)::text,
    ${CONTACT_TEXT_FIELDS.map((f) => member(f, `to_json(nullif(${column(f)}, ''))`)).join(',\n    ')},
    ${member('address', ADDRESS)},
    ${member('meta', META)},
    ${member('utmParams', withValues('c.utm_params'))},
    ${member('properties', `nullif(c.properties, '{}')`)},
    ',"createdAt":"', ${isoTime('c.created_at')}, '","updatedAt":"', ${isoTime('c.updated_at')},
    '","messages":', ${MESSAGES}, '}')`;

/**
 * A CSV cell as csvCell writes it, before quoting (COPY quotes): empty when missing or empty, and
 * prefixed with `'` when a spreadsheet would take it for a formula (= + - @ tab CR, by code).
 */
const cell = (e: string) =>
  `CASE WHEN ascii(${e}) IN (61, 43, 45, 64, 9, 13) THEN '''' || ${e} ELSE nullif(${e}, '') END`;

/** The CSV select list and the FROM items it reads (beside `contacts c`). */
export interface CsvSelect {
  cells: string[];
  from: string;
}

/**
 * The cells of contact `c` under the CSV columns of csvColumns, in order. `meta` is read into
 * columns once per contact (its keys are the service's own); a property is looked up by name. A
 * property's number is written as PostgreSQL writes the stored JSON number (the same digits as
 * JavaScript's for every number JavaScript writes in plain decimal notation).
 */
export function csvSelect(columns: readonly string[]): CsvSelect {
  const metaKeys: string[] = [];
  const cells = columns.map((name) => {
    const dot = name.indexOf('.');
    const [object, key] = dot < 0 ? [name, ''] : [name.slice(0, dot), name.slice(dot + 1)];
    switch (object) {
      case 'id':
        return 'c.id';
      case 'createdAt':
      case 'updatedAt':
        return isoTime(column(object));
      case 'address':
        return cell(column(key));
      case 'meta': {
        const value = `m.${escapeIdentifier(key)}`;
        metaKeys.push(key);
        return key === 'ps_converted_at'
          ? `coalesce(${isoTime('c.converted_at')}, ${cell(value)})`
          : cell(value);
      }
      case 'utmParams':
        return cell(`(c.utm_params->>${escapeLiteral(key)})`);
      case 'properties':
        return cell(`(c.properties->>${escapeLiteral(key)})`);
      default:
        return cell(column(object));
    }
  });
  const from = metaKeys.length
    ? `, jsonb_to_record(c.meta) AS m(${metaKeys.map((k) => `${escapeIdentifier(k)} text`).join(', ')})`
    : '';
  return { cells, from };
}

/**
 * A placeholder that writes the value into the statement as a literal: COPY takes no parameters.
 * An untyped literal takes its type from where it stands, as a parameter does.
 */
export const inlineLiteral: Placeholder = (value) => {
  if (value instanceof Date) return escapeLiteral(value.toISOString());
  if (typeof value === 'string') return escapeLiteral(value);
  if (typeof value === 'number' && Number.isFinite(value)) return `'${value}'`;
  if (typeof value === 'boolean') return `'${value}'`;
  throw new Error(`no literal for a filter value of type ${typeof value}`);
};
