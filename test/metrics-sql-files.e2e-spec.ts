import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@app/core';
import { databaseSchema } from '../db/schema';
import { statementCatalog, statementFiles } from '@app/metrics';
import { SQL_DIR } from '../scripts/sql-generate';
import { createTestDatabase } from './support/database';

/**
 * The metrics' statements as checked-in text (libs/metrics/sql, `npm run sql:generate`): a change
 * of what the code sends shows in review as a change of these files, so the files must be what
 * the code renders.
 */
describe('Metrics SQL files', () => {
  it('match what the code renders, one file per family and no other', () => {
    const rendered = statementFiles();
    const committed = readdirSync(SQL_DIR).filter((name) => name.endsWith('.sql'));
    expect(committed.sort()).toEqual(Object.keys(rendered).sort());
    for (const [name, text] of Object.entries(rendered))
      expect({ name, text: readFileSync(join(SQL_DIR, name), 'utf8') }).toEqual({ name, text });
  });

  it('are rendered the same way every time', () => {
    expect(statementFiles()).toEqual(statementFiles());
  });

  it('hold statements PostgreSQL accepts against the migrated schema', async () => {
    const db = await createTestDatabase();
    const dataSource = new DataSource(dataSourceOptions(db.url, databaseSchema));
    try {
      await dataSource.initialize();
      const refused: string[] = [];
      for (const [family, statements] of Object.entries(statementCatalog()))
        for (const s of statements) {
          // PREPARE parses and plans the statement, types its parameters, and runs nothing.
          try {
            await dataSource.query(`PREPARE catalog_probe AS ${s.text}`);
            await dataSource.query('DEALLOCATE catalog_probe');
          } catch (error) {
            refused.push(`${family}: ${s.name}: ${(error as Error).message}`);
          }
        }
      expect(refused).toEqual([]);
    } finally {
      await dataSource.destroy();
      await db.drop();
    }
  });
});
