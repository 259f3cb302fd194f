import { escapeIdentifier, escapeLiteral } from 'pg';
import { ADDRESS_FIELDS, CONTACT_TEXT_FIELDS } from './contact.presenter';
import type { Placeholder } from './contacts-search.sql';

// The Contact of the API as the export's COPY writes it, so that an export streams what COPY
// produces instead of reading rows into the driver and presenting them one by one: each CSV row
// whole, each NDJSON line's columns (joined by contacts-export.ndjson.ts). presentContact
// (contact.presenter.ts) stays the definition of the shape; these expressions follow it member by
// member, and test/contacts-export-agreement.e2e-spec.ts holds them to it.

/** The column of contact `c` behind a member of the entity (`houseNumber` -> `c.house_number`). */
const column = (member: string) => `c.${member.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`)}`;

/**
 * What the export's session sets first: timestamps are written in UTC (see isoTime), and as ISO
 * text (`2026-01-02 03:04:05.12+00`) when written as they are (ndjsonColumns).
 */
export const EXPORT_SESSION_SETTINGS = "SET LOCAL TimeZone = 'UTC'; SET LOCAL DateStyle = 'ISO'";

/**
 * A timestamp as the presenter writes it: ISO 8601 in UTC to the millisecond, the microseconds cut
 * off as the driver cuts them when it reads a timestamptz into a Date. The session's time zone is
 * UTC (EXPORT_SESSION_SETTINGS), which spares a zone conversion per value.
 */
const isoTime = (e: string) => `to_char(${e}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * jsonb object `e` without its members whose value is JSON null or `""` (NULL when it dropped them
 * all; an empty object stays as it is, the reader leaves both out).
 */
const withValues = (e: string) =>
  `CASE WHEN ${e} @? '$.* ? (@ == null || @ == "")'
        THEN (SELECT jsonb_object_agg(k, v) FROM jsonb_each(${e}) AS x(k, v) WHERE v <> 'null' AND v <> '""')
        ELSE ${e} END`;

/**
 * The columns an NDJSON line is built from (ndjsonLine in contacts-export.ndjson.ts), in its
 * order, as cheap for PostgreSQL to write as they can be: text and timestamps as they are stored,
 * `meta` without its null members nor, when its column is set, `ps_converted_at`, `utmParams`
 * without its empty members, and the messages (oldest first, members without a value left out)
 * already written as JSON, NULL when the contact has none. The messages' subquery names the funnel
 * (`funnel`, an SQL literal) itself, so Citus runs the export on the funnel's shard alone.
 */
export const ndjsonColumns = (funnel: string): string[] => [
  'c.id',
  'c.status',
  ...CONTACT_TEXT_FIELDS.map(column),
  ...ADDRESS_FIELDS.map(column),
  `jsonb_strip_nulls(CASE WHEN c.converted_at IS NOT NULL AND c.meta ? 'ps_converted_at'
                          THEN c.meta - 'ps_converted_at' ELSE c.meta END)`,
  'c.converted_at',
  withValues('c.utm_params'),
  'c.properties',
  'c.created_at',
  'c.updated_at',
  `(SELECT json_agg(json_strip_nulls(json_build_object(
                      'id', m.id, 'name', m.name, 'type', m.type, 'content', m.content,
                      'subject', nullif(m.subject, ''), 'status', m.status, 'sentAt', ${isoTime('m.sent_at')},
                      'deliveredAt', ${isoTime('m.delivered_at')}, 'openedAt', ${isoTime('m.opened_at')},
                      'clickedAt', ${isoTime('m.clicked_at')}, 'clicks', m.clicks, 'failure', nullif(m.failure, '')))
                    ORDER BY m.created_at, m.id)
    FROM contact_messages m WHERE m.contact_id = c.id AND m.funnel_id = ${funnel})`,
];

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
