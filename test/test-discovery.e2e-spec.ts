import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './support/processes';

// Names that read as a test file, whatever jest's patterns say.
const LOOKS_LIKE_A_TEST = /[.-](spec|test|e2e-spec|e2e)\.[cm]?[jt]sx?$/;
const SKIP = new Set(['node_modules', 'dist', '.data', 'coverage', '.git']);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** A test file jest's testMatch does not pick up would never run, and nobody would notice. */
describe('Test discovery', () => {
  it('runs every file named like a test (jest --listTests covers each one)', () => {
    const listed = new Set(
      (
        JSON.parse(
          execFileSync(
            process.execPath,
            [join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--listTests', '--json'],
            {
              cwd: ROOT,
              encoding: 'utf8',
            },
          ),
        ) as string[]
      ).map((file) => relative(ROOT, file)),
    );
    const candidates = ['apps', 'libs', 'clients', 'test', 'bench', 'scripts']
      .flatMap((dir) => filesUnder(join(ROOT, dir)))
      .map((file) => relative(ROOT, file))
      .filter((file) => LOOKS_LIKE_A_TEST.test(file));
    expect(candidates.length).toBeGreaterThan(40);
    expect(candidates.filter((file) => !listed.has(file))).toEqual([]);
  });
});
