import { Client } from 'pg';

// A dump of the public schema as one SQL script, written and read with the `pg` client alone:
// the embedded PostgreSQL ships no pg_dump, and a restore must not need one either. It covers
// what the service's schema uses (tables, a range-partitioned table and its partitions, serial
// sequences, constraints, indexes, plpgsql and SQL functions, triggers, storage options), in
// pg_dump's order: definitions, rows, then keys, indexes and triggers, so no trigger fires on a
// restored row.

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

type Rows = Record<string, string>[];

async function tablesSql(db: Client): Promise<{ pre: string[]; tables: string[] }> {
  const tables: Rows = (
    await db.query(
      `SELECT c.oid::text, c.relname, c.relkind, c.reloptions::text AS options,
              pg_get_partkeydef(c.oid) AS partkey, p.relname AS parent, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_class c
       LEFT JOIN pg_inherits i ON i.inhrelid = c.oid
       LEFT JOIN pg_class p ON p.oid = i.inhparent
       WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
       ORDER BY p.relname NULLS FIRST, c.relname`,
    )
  ).rows;
  const pre: string[] = [];
  for (const t of tables) {
    const options = t.options ? ` WITH (${t.options.slice(1, -1)})` : '';
    if (t.parent) {
      pre.push(`CREATE TABLE ${ident(t.relname)} PARTITION OF ${ident(t.parent)} ${t.bound}${options};`);
      continue;
    }
    const columns: Rows = (
      await db.query(
        `SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull::text AS notnull,
                pg_get_expr(d.adbin, d.adrelid) AS def
         FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
         WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
        [t.oid],
      )
    ).rows;
    const body = columns.map(
      (c) =>
        `  ${ident(c.attname)} ${c.type}${c.def ? ` DEFAULT ${c.def}` : ''}${c.notnull === 'true' ? ' NOT NULL' : ''}`,
    );
    const partition = t.relkind === 'p' ? ` PARTITION BY ${t.partkey}` : '';
    pre.push(`CREATE TABLE ${ident(t.relname)} (\n${body.join(',\n')}\n)${partition}${options};`);
  }
  return { pre, tables: tables.filter((t) => t.relkind === 'r').map((t) => t.relname) };
}

/** The public schema and every row of it, as a script `restoreDump` runs. */
export async function dumpDatabase(url: string): Promise<string> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const q = async (sql: string) => (await db.query(sql)).rows as Rows;
    const sequences = await q(
      `SELECT s.relname, format_type(q.seqtypid, NULL) AS type, q.seqstart::text AS start, l.last_value::text,
              t.relname AS owner_table, a.attname AS owner_column
       FROM pg_sequence q JOIN pg_class s ON s.oid = q.seqrelid
       JOIN pg_sequences l ON l.schemaname = 'public' AND l.sequencename = s.relname
       LEFT JOIN pg_depend d ON d.objid = s.oid AND d.deptype = 'a' AND d.refobjsubid > 0
       LEFT JOIN pg_class t ON t.oid = d.refobjid
       LEFT JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
       WHERE s.relnamespace = 'public'::regnamespace ORDER BY s.relname`,
    );
    const functions = await q(
      `SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p
       WHERE p.pronamespace = 'public'::regnamespace ORDER BY p.proname, p.oid`,
    );
    const { pre, tables } = await tablesSql(db);
    // Check constraints with the tables; keys (and their indexes) after the rows; foreign keys last.
    const constraints = await q(
      `SELECT c.conrelid::regclass::text AS rel, c.conname, c.contype, pg_get_constraintdef(c.oid) AS def
       FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid
       WHERE c.connamespace = 'public'::regnamespace AND c.contype IN ('c', 'p', 'u', 'f', 'x')
         AND (c.contype <> 'c' OR c.conislocal) AND (c.contype <> 'f' OR c.conparentid = 0)
       ORDER BY c.contype = 'f', r.relkind <> 'p', c.conrelid::regclass::text, c.conname`,
    );
    const indexes = await q(
      `SELECT pg_get_indexdef(i.indexrelid) AS def, c.relkind FROM pg_index i
       JOIN pg_class c ON c.oid = i.indexrelid
       WHERE c.relnamespace = 'public'::regnamespace
         AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype IN ('p', 'u', 'x'))
       ORDER BY c.relkind <> 'I', c.relname`,
    );
    const attached = await q(
      `SELECT p.relname AS parent, c.relname AS child FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
       WHERE c.relkind IN ('i', 'I') AND c.relnamespace = 'public'::regnamespace ORDER BY 1, 2`,
    );
    const triggers = await q(
      `SELECT pg_get_triggerdef(t.oid) AS def FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal AND t.tgparentid = 0
       ORDER BY c.relname, t.tgname`,
    );
    const out = [
      'SET check_function_bodies = false;',
      "SET client_min_messages = 'warning';",
      ...sequences.map((s) => `CREATE SEQUENCE ${ident(s.relname)} AS ${s.type} START ${s.start};`),
      ...functions.map((f) => `${f.def};`),
      ...pre,
      ...constraints.filter((c) => c.contype === 'c').map((c) => addConstraint(c)),
    ];
    for (const table of tables) {
      const [{ rows }] = await q(`SELECT coalesce(jsonb_agg(t), '[]')::text AS rows FROM ${ident(table)} t`);
      if (rows === '[]') continue;
      out.push(
        `INSERT INTO ${ident(table)} SELECT * FROM jsonb_populate_recordset(NULL::${ident(table)}, ${literal(rows)});`,
      );
    }
    out.push(
      ...constraints.filter((c) => c.contype !== 'c').map((c) => addConstraint(c)),
      ...indexes.map((i) => `${i.def};`),
      ...attached.map((a) => `ALTER INDEX ${ident(a.parent)} ATTACH PARTITION ${ident(a.child)};`),
      ...triggers.map((t) => `${t.def};`),
      ...sequences.flatMap((s) => [
        ...(s.owner_table
          ? [`ALTER SEQUENCE ${ident(s.relname)} OWNED BY ${ident(s.owner_table)}.${ident(s.owner_column)};`]
          : []),
        // A sequence never called has no last value: it starts again at its start.
        `SELECT setval(${literal(ident(s.relname))}, ${s.last_value ?? s.start}, ${s.last_value !== null});`,
      ]),
    );
    await db.query('COMMIT');
    return `${out.join('\n')}\n`;
  } finally {
    await db.end();
  }
}

const addConstraint = (c: Record<string, string>) =>
  `ALTER TABLE ONLY ${c.rel} ADD CONSTRAINT ${ident(c.conname)} ${c.def};`;

/** Runs a script `dumpDatabase` wrote into the (empty) database at `url`, in one transaction. */
export async function restoreDump(url: string, script: string): Promise<void> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    await db.query(`BEGIN;\n${script}\nCOMMIT;`);
  } finally {
    await db.end();
  }
}
