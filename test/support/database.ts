import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

function templateUrl(): URL {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the tests with `npm test`');
  return new URL(url);
}

/**
 * A fresh database cloned from the migrated template, so every suite starts from the real schema
 * with no rows and cannot see another suite's data.
 */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const template = templateUrl();
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = new URL(template);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(
      `CREATE DATABASE ${name} TEMPLATE ${client.escapeIdentifier(template.pathname.slice(1))}`,
    );
  } finally {
    await client.end();
  }
  const url = new URL(template);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new Client({ connectionString: admin.toString() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => c.end());
    },
  };
}
