import { Client } from 'pg';
import type { INestApplicationContext } from '@nestjs/common';
import { ApiKeysService, CompaniesService, PERMISSIONS } from '@app/auth';
import { runMigrations, startThrowawayPostgres, ThrowawayPostgres, validateEnv } from '@app/core';
import { FunnelsService, WorkspacesService } from '@app/workspaces';
import { databaseSchema } from '../../db/schema';

export const BENCH_PAGES = [
  { slug: 'start', title: 'Welcome' },
  { slug: 'goals', title: 'Your goals' },
  { slug: 'budget', title: 'Budget' },
  { slug: 'contact', title: 'Contact details' },
  { slug: 'thank-you', title: 'Thank you' },
];

export interface BenchFunnel {
  companyId: string;
  funnelId: string;
  key: string;
}

/**
 * The service's variables for a bench's app, validated, and set in this process's environment too:
 * the jobs read theirs through ConfigService, which reads the process's environment while the app
 * is built (test/support/app.ts does the same). Without it, SEGMENT_FOLD_POLL_MS stayed 10 s and the
 * fold job ran beside the bench's own round.
 */
export function benchAppEnv(vars: Record<string, string>): ReturnType<typeof validateEnv> {
  Object.assign(process.env, vars);
  return validateEnv(vars);
}

/**
 * A throwaway embedded PostgreSQL in a temp dir, migrated. Checkpoints are spaced out for the bulk
 * load (max_wal_size); durability settings stay as shipped.
 */
export async function startBenchDatabase(): Promise<ThrowawayPostgres> {
  const pg = await startBenchPostgres();
  await runMigrations(pg.url, databaseSchema);
  return pg;
}

/** startBenchDatabase's PostgreSQL, not migrated (for a build that migrates it itself). */
export async function startBenchPostgres(): Promise<ThrowawayPostgres> {
  const pg = await startThrowawayPostgres();
  await sql(pg.url, [
    `ALTER SYSTEM SET max_wal_size = '8GB'`,
    `ALTER SYSTEM SET checkpoint_timeout = '30min'`,
    'SELECT pg_reload_conf()',
  ]);
  return pg;
}

/** `url` with its database replaced by `name` (`postgres` for CREATE and DROP DATABASE). */
export function onDatabase(url: string, name: string): string {
  const other = new URL(url);
  other.pathname = `/${name}`;
  return other.toString();
}

export async function sql(url: string, statements: string[]): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function createBenchFunnel(app: INestApplicationContext, name: string): Promise<BenchFunnel> {
  const company = await app.get(CompaniesService).create(name);
  const workspace = await app.get(WorkspacesService).create(company.id, 'Bench');
  const funnel = await app
    .get(FunnelsService)
    .create({ workspaceId: workspace.id, name, status: 'online', pages: BENCH_PAGES });
  const { key } = await app.get(ApiKeysService).create(company.id, [...PERMISSIONS], 'bench');
  return { companyId: company.id, funnelId: funnel.id, key };
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const fmt = (n: number, digits = 1) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/**
 * How fast this machine is right now: PostgreSQL summing 20 million integers (about 1.5 s on an
 * idle modern core). Printed with the figures, since the benchmarks share the machine.
 */
export async function calibrate(url: string): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    await client.query('SELECT sum(i) FROM generate_series(1, 20000000) AS i');
    return performance.now() - started;
  } finally {
    await client.end();
  }
}
