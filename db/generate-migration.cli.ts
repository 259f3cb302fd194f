import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { dataSourceOptions, startThrowawayPostgres } from '@app/core';
import { databaseSchema } from './schema';

/**
 * `npm run migration:generate -- <Name>`: applies the committed migrations to a throwaway
 * PostgreSQL, diffs the entities against it and writes the difference as a new migration.
 */
async function main(): Promise<void> {
  const name = process.argv[2];
  if (!name || !/^[A-Z][A-Za-z0-9]+$/.test(name)) {
    throw new Error('usage: npm run migration:generate -- <PascalCaseName>');
  }
  const pg = await startThrowawayPostgres();
  const dataSource = new DataSource(dataSourceOptions(pg.url, databaseSchema));
  try {
    await dataSource.initialize();
    await dataSource.runMigrations();
    const sql = await dataSource.driver.createSchemaBuilder().log();
    if (!sql.upQueries.length) {
      console.log('entities and migrations agree: nothing to generate');
      return;
    }
    const timestamp = Date.now();
    const render = (queries: { query: string; parameters?: unknown[] }[]) =>
      queries
        .map(
          (q) =>
            `    await queryRunner.query(${JSON.stringify(q.query)}${q.parameters?.length ? `, ${JSON.stringify(q.parameters)}` : ''});`,
        )
        .join('\n');
    const file = join(__dirname, 'migrations', `${timestamp}-${name}.ts`);
    writeFileSync(
      file,
      `import { MigrationInterface, QueryRunner } from 'typeorm';

export class ${name}${timestamp} implements MigrationInterface {
  name = '${name}${timestamp}';

  public async up(queryRunner: QueryRunner): Promise<void> {
${render(sql.upQueries)}
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
${render([...sql.downQueries].reverse())}
  }
}
`,
    );
    console.log(`wrote ${file}`);
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await pg.destroy();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
