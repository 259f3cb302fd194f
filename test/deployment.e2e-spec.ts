import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { validateEnv } from '@app/core';
import { startTestApp } from './support/app';

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
    AUTOMATION_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
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

describe('Kubernetes manifests', () => {
  const dir = 'deploy/k8s';
  const load = (file: string) => parse(read(`${dir}/${file}`)) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const kustomization = load('kustomization.yaml') as { resources: string[] };
  const docs = Object.fromEntries(
    kustomization.resources.map((file) => [load(file).kind as string, load(file)]),
  );

  it('lists manifests that exist', () => {
    for (const file of kustomization.resources) expect(existsSync(join(root, dir, file))).toBe(true);
    expect(Object.keys(docs).sort()).toEqual(['ConfigMap', 'Deployment', 'Job', 'Service']);
  });

  it('configures the service with values it accepts in production', () => {
    const secret = load('secret.example.yaml');
    expect(Object.keys(secret.stringData)).toContain('AUTOMATION_SECRET_KEY');
    const env = validateEnv({
      ...docs.ConfigMap.data,
      ...secret.stringData,
      // the example's placeholder is not a key; a real one is 32 random bytes
      AUTOMATION_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
    });
    expect(env.NODE_ENV).toBe('production');
  });

  it('probes routes the service serves and selects its own pods', async () => {
    const t = await startTestApp();
    try {
      const container = docs.Deployment.spec.template.spec.containers[0];
      for (const probe of [container.readinessProbe, container.livenessProbe]) {
        expect((await fetch(`${t.baseUrl}${probe.httpGet.path}`)).status).toBe(200);
      }
    } finally {
      await t.close();
    }
    expect(docs.Deployment.spec.template.metadata.labels).toMatchObject(
      docs.Deployment.spec.selector.matchLabels,
    );
    expect(docs.Deployment.spec.template.metadata.labels).toMatchObject(docs.Service.spec.selector);
  });

  it('migrates with the compiled migration command', () => {
    const command = docs.Job.spec.template.spec.containers[0].command as string[];
    expect(existsSync(join(root, sourceOf(command[1])))).toBe(true);
  });
});

describe('Health probes', () => {
  it('are never rate limited', async () => {
    const t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '2' });
    try {
      const statuses = await Promise.all(
        Array.from({ length: 70 }, (_, i) =>
          fetch(`${t.baseUrl}/health${i % 2 ? '/live' : ''}`).then((r) => r.status),
        ),
      );
      expect(new Set(statuses)).toEqual(new Set([200]));
    } finally {
      await t.close();
    }
  });
});
