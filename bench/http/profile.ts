import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** The top entries of the V8 CPU profile in `dir` by self time, with the share of all samples. */
export function printProfile(dir: string, top = 25): void {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) return void console.log('no CPU profile was written');
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: ProfileNode[] };
  const self = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    total += hits;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${relative(process.cwd(), url.replace('file://', ''))}:${lineNumber + 1}` : '';
    const name = `${functionName || '(anonymous)'} ${where}`.trim();
    self.set(name, (self.get(name) ?? 0) + hits);
  }
  console.log(`\nservice CPU profile, top ${top} by self time (${file}):`);
  for (const [name, hits] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * hits) / total).toFixed(1).padStart(6)} %  ${name}`);
  }
}
