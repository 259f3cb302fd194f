import { Client } from 'pg';
import { CITUS_GAPS, CITUS_PLAN, Placement } from '../db/citus-plan';
import { createTestDatabase } from './support/database';

interface Table {
  name: string;
  columns: Set<string>;
  /** Unique indexes, the primary key's flagged. */
  unique: { name: string; primary: boolean; columns: string[] }[];
  foreignKeys: { columns: string[]; references: string; referenced: string[] }[];
}

/** The migrated schema's tables (partitions folded into their parent), read from the catalog. */
async function readCatalog(url: string): Promise<Table[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const names = (rel: string, keys: string) =>
      `ARRAY(SELECT a.attname::text FROM unnest(${keys}) WITH ORDINALITY AS k(n, i)
             JOIN pg_attribute a ON a.attrelid = ${rel} AND a.attnum = k.n ORDER BY k.i)`;
    const { rows } = await client.query<{
      name: string;
      columns: string[];
      unique: Table['unique'];
      foreign_keys: Table['foreignKeys'];
    }>(
      `SELECT c.relname AS name,
              ARRAY(SELECT attname::text FROM pg_attribute WHERE attrelid = c.oid AND attnum > 0 AND NOT attisdropped) AS columns,
              coalesce((SELECT json_agg(json_build_object('name', ic.relname, 'primary', i.indisprimary,
                                                          'columns', ${names('c.oid', 'i.indkey::int2[]')}))
                        FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
                        WHERE i.indrelid = c.oid AND i.indisunique), '[]') AS unique,
              coalesce((SELECT json_agg(json_build_object('columns', ${names('c.oid', 'f.conkey')},
                                                          'references', f.confrelid::regclass::text,
                                                          'referenced', ${names('f.confrelid', 'f.confkey')}))
                        FROM pg_constraint f WHERE f.conrelid = c.oid AND f.contype = 'f'), '[]') AS foreign_keys
       FROM pg_class c
       WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
       ORDER BY 1`,
    );
    return rows.map((r) => ({
      name: r.name,
      columns: new Set(r.columns),
      unique: r.unique,
      foreignKeys: r.foreign_keys,
    }));
  } finally {
    await client.end();
  }
}

const list = (columns: string[]) => `(${columns.join(', ')})`;

/** Why each table does not fit its placement (none: it fits). */
export function misfits(tables: Table[], plan: Record<string, Placement>): string[] {
  const problems: string[] = [];
  const inSchema = new Set(tables.map((t) => t.name));
  for (const name of Object.keys(plan)) {
    if (!inSchema.has(name)) problems.push(`${name}: in the plan but not in the schema`);
  }
  for (const table of tables) {
    const placement = plan[table.name];
    if (!placement) {
      problems.push(`${table.name}: not in the plan (db/citus-plan.ts)`);
      continue;
    }
    if (!('distributed' in placement)) {
      // A reference (or coordinator) table may refer only to reference tables.
      for (const fk of table.foreignKeys) {
        if (!('reference' in (plan[fk.references] ?? {})))
          problems.push(
            `${table.name}: foreign key ${list(fk.columns)} refers to ${fk.references}, not a reference table`,
          );
      }
      continue;
    }
    const column = placement.distributed;
    if (!table.columns.has(column)) {
      problems.push(`${table.name}: has no ${column} column`);
      continue;
    }
    for (const index of table.unique) {
      if (!index.columns.includes(column)) {
        const what = index.primary ? 'primary key' : `unique index ${index.name}`;
        problems.push(`${table.name}: ${what} ${list(index.columns)} lacks ${column}`);
      }
    }
    for (const fk of table.foreignKeys) {
      const target = plan[fk.references];
      if (target && 'reference' in target) continue;
      if (!target || !('distributed' in target) || target.distributed !== column) {
        problems.push(
          `${table.name}: foreign key ${list(fk.columns)} refers to ${fk.references}, not co-located`,
        );
        continue;
      }
      const at = fk.columns.indexOf(column);
      if (at < 0 || fk.referenced[at] !== column)
        problems.push(`${table.name}: foreign key ${list(fk.columns)} lacks ${column}`);
    }
  }
  return problems.sort();
}

describe('The Citus plan (db/citus-plan.ts)', () => {
  let tables: Table[];

  beforeAll(async () => {
    const db = await createTestDatabase();
    try {
      tables = await readCatalog(db.url);
    } finally {
      await db.drop();
    }
  });

  it('places every table, and every table fits its placement but for the gaps the migration to Citus closes', () => {
    expect(misfits(tables, CITUS_PLAN)).toEqual([...CITUS_GAPS].sort());
  });

  it('fails on a table that does not fit, or is not in the plan', () => {
    // The contacts table as it was before its key gained funnel_id.
    const contacts: Table = {
      ...tables.find((t) => t.name === 'contacts')!,
      unique: [{ name: 'pk', primary: true, columns: ['id'] }],
    };
    const stray: Table = {
      name: 'contact_notes',
      columns: new Set(['id', 'contact_id', 'company_id']),
      unique: [{ name: 'pk', primary: true, columns: ['id'] }],
      foreignKeys: [{ columns: ['contact_id'], references: 'contacts', referenced: ['id'] }],
    };
    const plan = { contacts: { distributed: 'funnel_id' }, funnels: { reference: 'tenant check' } } as const;
    const funnels: Table = {
      name: 'funnels',
      columns: new Set(['id']),
      unique: [{ name: 'pk', primary: true, columns: ['id'] }],
      foreignKeys: [],
    };
    expect(misfits([contacts, funnels, stray], plan)).toEqual([
      'contact_notes: not in the plan (db/citus-plan.ts)',
      'contacts: primary key (id) lacks funnel_id',
    ]);
    expect(
      misfits([stray], {
        contacts: { distributed: 'funnel_id' },
        contact_notes: { distributed: 'company_id' },
      }),
    ).toEqual([
      'contact_notes: foreign key (contact_id) refers to contacts, not co-located',
      'contact_notes: primary key (id) lacks company_id',
      'contacts: in the plan but not in the schema',
    ]);
  });
});
