import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { ADDRESS_FIELDS, CONTACT_TEXT_FIELDS } from '@app/contacts';

// The reference of the export bench: the NDJSON line as PostgreSQL wrote it whole before the line
// was joined in Node from COPY's columns (kept here only to time it and to compare the bytes), and
// a variant that measures a smaller split of the work.

const column = (member: string) => `c.${member.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`)}`;
const isoTime = (e: string) => `to_char(${e}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const member = (name: string, json: string) => `',"${name}":' || (${json})::text`;
const withValues = (e: string) =>
  `CASE WHEN ${e} @? '$.* ? (@ == null || @ == "")'
        THEN (SELECT jsonb_object_agg(k, v) FROM jsonb_each(${e}) AS x(k, v) WHERE v <> 'null' AND v <> '""')
        ELSE nullif(${e}, '{}') END`;
const META = `CASE WHEN c.converted_at IS NULL THEN nullif(jsonb_strip_nulls(c.meta), '{}')::text
    ELSE '{"ps_converted_at":"' || ${isoTime('c.converted_at')} || '"' || coalesce(', ' || nullif(substr(
      jsonb_strip_nulls(CASE WHEN c.meta ? 'ps_converted_at' THEN c.meta - 'ps_converted_at' ELSE c.meta END)::text,
      2), '}'), '}') END`;
const ADDRESS = `'{' || substr(nullif(concat(${ADDRESS_FIELDS.map((f) => member(f, `to_json(nullif(${column(f)}, ''))`)).join(', ')}), ''), 2) || '}'`;
const MESSAGES = `coalesce((
    SELECT json_agg(CASE WHEN coalesce(m.subject, '') = ''
                         THEN json_build_object('id', m.id, 'name', m.name, 'type', m.type, 'content', m.content)
                         ELSE json_build_object('id', m.id, 'name', m.name, 'type', m.type, 'content', m.content,
                                                'subject', m.subject) END
                    ORDER BY m.created_at, m.id)
    FROM contact_messages m WHERE m.contact_id = c.id AND m.funnel_id = c.funnel_id), '[]')`;
/**
 * The line before; with `timesAndMetaAsText`, the line PostgreSQL would still write if only the
 * timestamps and meta moved to Node (timestamps as plain text, meta without its nulls and
 * converted_at beside it): a cost reference only, its bytes are not the export's.
 */
const lineBefore = (timesAndMetaAsText: boolean) => {
  const time = timesAndMetaAsText ? (e: string) => `${e}::text` : isoTime;
  const meta = timesAndMetaAsText
    ? `jsonb_strip_nulls(CASE WHEN c.converted_at IS NOT NULL AND c.meta ? 'ps_converted_at'
                              THEN c.meta - 'ps_converted_at' ELSE c.meta END)::text || c.converted_at::text`
    : META;
  return `concat(
    '{"id":"', c.id, '","status":', to_json(c.status)::text,
    ${CONTACT_TEXT_FIELDS.map((f) => member(f, `to_json(nullif(${column(f)}, ''))`)).join(',\n    ')},
    ${member('address', ADDRESS)},
    ${member('meta', meta)},
    ${member('utmParams', withValues('c.utm_params'))},
    ${member('properties', `nullif(c.properties, '{}')`)},
    ',"createdAt":"', ${time('c.created_at')}, '","updatedAt":"', ${time('c.updated_at')},
    '","messages":', ${MESSAGES}, '}')`;
};

/**
 * The funnel's contacts as the line before wrote them (table order, as the export reads them),
 * read to the end: rows, bytes, seconds and the bytes' SHA-256.
 */
export async function copyLineBefore(
  url: string,
  funnelId: string,
  timesAndMetaAsText = false,
): Promise<{ rows: number; bytes: number; s: number; sha256: string }> {
  const client = new Client(url);
  await client.connect();
  try {
    const started = performance.now();
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    await client.query("SET LOCAL TimeZone = 'UTC'");
    const copy = client.query(
      copyTo(
        `COPY (SELECT ${lineBefore(timesAndMetaAsText)} FROM contacts c WHERE c.funnel_id = '${funnelId}')
         TO STDOUT WITH (FORMAT csv, DELIMITER E'\\x02', QUOTE E'\\x01')`,
      ),
    );
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of copy) {
      bytes += (chunk as Buffer).length;
      hash.update(chunk as Buffer);
    }
    await client.query('COMMIT');
    return {
      rows: copy.rowCount,
      bytes,
      s: (performance.now() - started) / 1000,
      sha256: hash.digest('hex'),
    };
  } finally {
    await client.end();
  }
}
