/** What the benches of a funnel page's routes share: the admin CLI, a collecting funnel, the service. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { freePort, productionEnv, Server, startService } from '../http/processes';

const ROOT = process.cwd();

/** The admin CLI on the bench database; its one JSON line. */
export function admin(databaseUrl: string, ...command: string[]): Record<string, unknown> {
  const out = execFileSync(process.execPath, [join(ROOT, 'scripts/admin.js'), ...command], {
    env: { ...process.env, NODE_ENV: 'development', DATABASE_URL: databaseUrl },
  });
  return JSON.parse(out.toString()) as Record<string, unknown>;
}

/** A company's funnel whose browser collection allows `origin`; its id. */
export function collectingFunnel(databaseUrl: string, origin: string): string {
  const company = admin(databaseUrl, 'company', 'create', '--name', 'Bench').id as string;
  const workspace = admin(databaseUrl, 'workspace', 'create', '--company', company, '--name', 'W')
    .id as string;
  const funnelId = admin(databaseUrl, 'funnel', 'create', '--workspace', workspace, '--name', 'F')
    .id as string;
  admin(databaseUrl, 'funnel', 'collection', '--id', funnelId, '--enable', '--origins', origin);
  return funnelId;
}

/** The production build on the bench database; its CPU profile written into `profileDir` when given. */
export async function startBenchService(
  databaseUrl: string,
  env: Record<string, string>,
  profileDir: string,
): Promise<Server> {
  const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  return startService(ROOT, { ...productionEnv(databaseUrl), ...env }, await freePort(), profile);
}
