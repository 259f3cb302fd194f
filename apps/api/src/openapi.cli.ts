import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateOpenApiDocument, serializeOpenApi } from './openapi';

/** `npm run openapi:generate`: writes openapi.json at the repository root from the code. */
async function main(): Promise<void> {
  const file = join(__dirname, '..', '..', '..', 'openapi.json');
  writeFileSync(file, serializeOpenApi(await generateOpenApiDocument()));
  console.log(`wrote ${file}`);
}

main().catch((error) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
