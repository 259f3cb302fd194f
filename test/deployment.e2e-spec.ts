import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { validateEnv } from '@app/core';

const root = join(__dirname, '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** Docker Compose interpolation: `${X:?msg}` and `${X}` from `values`, `${X:-default}` falls back. */
function interpolate(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{(\w+)(?::([?-])([^}]*))?\}/g, (_, name: string, op?: string, arg?: string) => {
    if (values[name] !== undefined) return values[name];
    if (op === '-') return arg ?? '';
    throw new Error(`${name} is required by docker-compose.yml: ${arg}`);
  });
}

/** The source file a `dist/...js` path is compiled from. */
const sourceOf = (distPath: string) => distPath.replace(/^dist\//, '').replace(/\.js$/, '.ts');

interface ComposeService {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
}

describe('Deployment files', () => {
  const required = {
    POSTGRES_PASSWORD: 'secret',
    IDP_URL: 'https://tenant.idp.example',
    OAUTH_CLIENT_ID: 'client',
    OAUTH_AUDIENCE: 'https://api.example',
    OAUTH_CLAIM_NAMESPACE: 'https://example.com',
  };
  const compose = parse(interpolate(read('docker-compose.yml'), required)) as {
    services: Record<string, ComposeService>;
  };

  it('refuses to start without the required secrets', () => {
    expect(() => interpolate(read('docker-compose.yml'), {})).toThrow(/POSTGRES_PASSWORD is required/);
  });

  it('runs postgres, redis, a one-shot migration and the api', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['api', 'migrate', 'postgres', 'redis']);
    expect(compose.services.postgres.healthcheck).toBeDefined();
    expect(compose.services.redis.healthcheck).toBeDefined();
    expect(compose.services.migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(compose.services.api.depends_on).toEqual({
      migrate: { condition: 'service_completed_successfully' },
      redis: { condition: 'service_healthy' },
    });
  });

  it('gives the api a configuration the service accepts in production', () => {
    const env = validateEnv(compose.services.api.environment ?? {});
    expect(env).toMatchObject({ NODE_ENV: 'production', REDIS_URL: 'redis://redis:6379' });
    expect(env.DATABASE_URL).toBe('postgres://funnel_crm:secret@postgres:5432/funnel_crm');
    expect(compose.services.migrate.environment).toEqual(compose.services.api.environment);
  });

  it('starts compiled entry points that exist in the source tree', () => {
    const dockerfile = read('Dockerfile');
    const cmd = /^CMD \[(.*)\]$/m.exec(dockerfile)?.[1];
    const apiEntry = JSON.parse(`[${cmd}]`)[1] as string;
    expect(existsSync(join(root, sourceOf(apiEntry)))).toBe(true);
    const migrateEntry = compose.services.migrate.command?.[1] ?? '';
    expect(existsSync(join(root, sourceOf(migrateEntry)))).toBe(true);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/HEALTHCHECK[\s\S]*\/health/);
  });
});
