import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './support/processes';

jest.setTimeout(180_000);

interface LintMessage {
  ruleId: string | null;
  message: string;
}

/** The project's ESLint run on `code` as if it were the file at `path` (nothing is written). */
function lintAs(path: string, code: string): Promise<LintMessage[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [
        join(ROOT, 'node_modules/eslint/bin/eslint.js'),
        '--format',
        'json',
        '--stdin',
        '--stdin-filename',
        path,
      ],
      { cwd: ROOT, maxBuffer: 10_000_000 },
      (error, stdout) => {
        // ESLint exits 1 when it reports a problem; the JSON says which.
        if (error && error.code !== 1) return reject(error);
        resolve((JSON.parse(stdout) as { messages: LintMessage[] }[])[0].messages);
      },
    );
    child.stdin?.end(code);
  });
}

const rules = (messages: LintMessage[]) => messages.map((m) => m.ruleId);

describe('module boundaries (npm run lint)', () => {
  it('refuses an import past a library’s index.ts, by alias or by path', async () => {
    const messages = await lintAs(
      'test/boundary-probe.e2e-spec.ts',
      [
        "import { Funnel } from '@app/workspaces/entities/funnel.entity';",
        "import { hashKey } from '../libs/auth/src/api-key.secret';",
        'export const probe = [Funnel, hashKey];',
      ].join('\n'),
    );
    expect(rules(messages)).toEqual(['no-restricted-imports', 'no-restricted-imports']);
    expect(messages[0].message).toContain('through its index.ts');
  });

  it('accepts the same names through the libraries’ doors', async () => {
    const messages = await lintAs(
      'test/boundary-probe.e2e-spec.ts',
      [
        "import { hashKey } from '@app/auth';",
        "import { Funnel } from '@app/workspaces';",
        'export const probe = [Funnel, hashKey];',
      ].join('\n'),
    );
    expect(messages).toEqual([]);
  });

  it('refuses an import that closes a cycle between libraries', async () => {
    // mcp depends on contacts; contacts importing mcp would make the two depend on each other.
    const messages = await lintAs(
      'libs/contacts/src/contact-erasure.ts',
      "import { McpModule } from '@app/mcp';\nexport const probe = McpModule;\n",
    );
    expect(rules(messages)).toEqual(['import-x/no-cycle']);
  });

  it('refuses a domain import in core, and a migration or app import in a library', async () => {
    const core = await lintAs(
      'libs/core/src/http/boundary-probe.ts',
      "import { ContactsModule } from '@app/contacts';\nexport const probe = ContactsModule;\n",
    );
    expect(core.map((m) => m.message)).toEqual([expect.stringContaining('core knows no domain')]);
    const library = await lintAs(
      'libs/metrics/src/boundary-probe.ts',
      "import { databaseSchema } from '../../../db/schema';\nexport const probe = databaseSchema;\n",
    );
    expect(library.map((m) => m.message)).toEqual([
      expect.stringContaining('imports no app and no migration'),
    ]);
  });

  it('refuses application code in a migration, by alias or by path, and finds none in db/migrations', async () => {
    const probe = await lintAs(
      'db/migrations/1796639999999-BoundaryProbe.ts',
      [
        "import { SEGMENT_GRAINS } from '@app/metrics';",
        "import { FILTER_NAMES } from '../../libs/metrics/src/events/session-definitions';",
        "import { databaseSchema } from '../schema';",
        "import { SEGMENT_SESSION_ROLLUPS } from './1796300000000-SessionSegments';",
        'export const probe = [SEGMENT_GRAINS, FILTER_NAMES, databaseSchema, SEGMENT_SESSION_ROLLUPS];',
      ].join('\n'),
    );
    expect(probe.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message)).toEqual([
      expect.stringContaining('imports no application code'),
      expect.stringContaining('imports no application code'),
      expect.stringContaining('imports no application code'),
    ]);
    // Every committed migration: what it imports or requires, read from its text.
    const dir = join(ROOT, 'db/migrations');
    const imported = readdirSync(dir)
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) =>
        [
          ...readFileSync(join(dir, file), 'utf8').matchAll(/(?:\bfrom|^import|\brequire\()\s*'([^']+)'/gm),
        ].map(([, from]) => `${file}: ${from}`),
      );
    expect(imported.length).toBeGreaterThan(20);
    expect(imported.filter((line) => !/: (typeorm|\.\/\d+-\w+)$/.test(line))).toEqual([]);
  });
});
