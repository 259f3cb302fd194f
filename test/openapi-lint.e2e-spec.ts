import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeAtLeast } from './support/node-runtime';
import { ROOT } from './support/processes';

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: 'error' | 'warn'; location: { pointer: string }[] }[];
}

/** `npm run lint:openapi` as CI runs it (redocly.yaml: the recommended rules), with a JSON report. */
function lint(file: string): Promise<LintReport> {
  const cli = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
  return new Promise((resolve, reject) => {
    execFile(
      nodeAtLeast(22),
      [cli, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'],
      {
        cwd: ROOT,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 16 * 1024 * 1024,
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        try {
          resolve(JSON.parse(stdout) as LintReport);
        } catch {
          reject(new Error(`redocly lint printed no report (${error?.message ?? ''}): ${stderr}`));
        }
      },
    );
  });
}

describe('openapi.json under Redocly lint (recommended rules)', () => {
  it('has no errors', async () => {
    const report = await lint(join(ROOT, 'openapi.json'));
    const errors = report.problems
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
  });

  it('fails a document whose public route does not say `security: []`', async () => {
    const document = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, { security?: unknown }>>;
    };
    delete document.paths['/health'].get.security;
    const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
    try {
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document));
      const report = await lint(join(dir, 'openapi.json'));
      expect(report.problems).toContainEqual(
        expect.objectContaining({
          ruleId: 'security-defined',
          severity: 'error',
          location: [expect.objectContaining({ pointer: '#/paths/~1health/get' })],
        }),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
