import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { statementFiles } from '@app/metrics';

/** `npm run sql:generate`: writes libs/metrics/sql/*.sql, every statement the metrics send, from the code. */
export const SQL_DIR = join(__dirname, '..', 'libs', 'metrics', 'sql');

function main(): void {
  mkdirSync(SQL_DIR, { recursive: true });
  const files = statementFiles();
  // A family no longer rendered leaves no stale file behind.
  for (const name of readdirSync(SQL_DIR))
    if (name.endsWith('.sql') && !(name in files)) rmSync(join(SQL_DIR, name));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(SQL_DIR, name), text);
  console.log(`wrote ${Object.keys(files).length} files to ${SQL_DIR}`);
}

if (require.main === module) main();
