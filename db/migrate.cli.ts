import { ConfigValidationError, resolveDatabase, runMigrations, validateEnv } from '@app/core';
import { databaseSchema } from './schema';

/** `npm run migration:run`: applies pending migrations (the production deploy step). */
async function main(): Promise<void> {
  const env = validateEnv(process.env);
  const db = await resolveDatabase(env);
  try {
    const applied = await runMigrations(db.url, databaseSchema, env);
    console.log(
      applied.length
        ? `applied ${applied.length} migration(s): ${applied.join(', ')}`
        : 'database is up to date',
    );
  } finally {
    await db.embedded?.release();
  }
}

main().catch((error) => {
  console.error(
    error instanceof ConfigValidationError ? error.message : `migration failed: ${(error as Error).message}`,
  );
  process.exit(1);
});
