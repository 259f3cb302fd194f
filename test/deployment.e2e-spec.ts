import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { validateEnv } from '@app/core';
import { startTestApp } from './support/app';

const root = join(__dirname, '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/**
 * Docker Compose interpolation: `${X:?msg}` and `${X}` from `values`, `${X:-default}` falls back;
 * a default may itself hold a variable (resolved innermost first).
 */
function interpolate(text: string, values: Record<string, string>): string {
  const innermost = /\$\{(\w+)(?::([?-])([^${}]*))?\}/g;
  let result = text;
  while (innermost.test(result)) {
    result = result.replace(innermost, (_, name: string, op?: string, arg?: string) => {
      if (values[name] !== undefined) return values[name];
      if (op === '-') return arg ?? '';
      throw new Error(`${name} is required by docker-compose.yml: ${arg}`);
    });
  }
  return result;
}

/** The source file a `dist/...js` path is compiled from. */
const sourceOf = (distPath: string) => distPath.replace(/^dist\//, '').replace(/\.js$/, '.ts');

interface ComposeService {
  image?: string;
  build?: string;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  profiles?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
  ports?: string[];
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

  /** The services `docker compose up` starts with the given profiles active. */
  const servicesWith = (...profiles: string[]) =>
    Object.keys(compose.services)
      .filter((name) => (compose.services[name].profiles ?? []).every((p) => profiles.includes(p)))
      .sort();
  /** The repository file a service mounts at `target`. */
  const mounted = (service: string, target: string) => {
    const volume = compose.services[service].volumes?.find((v) => v.split(':')[1] === target);
    expect([service, target, volume]).toEqual([service, target, expect.stringMatching(/^\.\//)]);
    return read(volume!.split(':')[0]);
  };

  it('runs postgres behind pgbouncer, redis, a one-shot migration and the api', () => {
    expect(servicesWith()).toEqual(['api', 'migrate', 'pgbouncer', 'postgres', 'redis']);
    expect(compose.services.pgbouncer.environment).toMatchObject({
      DB_HOST: 'postgres',
      POOL_MODE: 'transaction',
      LISTEN_PORT: '6432',
    });
    expect(compose.services.pgbouncer.image).toMatch(/^edoburu\/pgbouncer:v[\d.]+-p\d+$/);
    expect(compose.services.postgres.healthcheck).toBeDefined();
    expect(compose.services.redis.healthcheck).toBeDefined();
    expect(compose.services.migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(compose.services.api.depends_on).toEqual({
      migrate: { condition: 'service_completed_successfully' },
      pgbouncer: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
  });

  it('gives the api a configuration the service accepts in production', () => {
    const env = validateEnv(compose.services.api.environment ?? {});
    expect(env).toMatchObject({ NODE_ENV: 'production', REDIS_URL: 'redis://redis:6379' });
    // Through the pooler; migrations and the caches' listening connection past it.
    expect(env).toMatchObject({
      DATABASE_URL: 'postgres://funnel_crm:secret@pgbouncer:6432/funnel_crm',
      DATABASE_POOL_MODE: 'transaction',
      DATABASE_DIRECT_URL: 'postgres://funnel_crm:secret@postgres:5432/funnel_crm',
    });
    expect(compose.services.migrate.environment).toEqual(compose.services.api.environment);
    expect(env.METRICS_PORT).toBe(9464);
  });

  it('runs a streaming replica under the profile "replica", read through its own pgbouncer', () => {
    expect(servicesWith('replica')).toEqual(
      [...servicesWith(), 'pgbouncer-replica', 'postgres-replica'].sort(),
    );
    const { postgres, pgbouncer } = compose.services;
    const replica = compose.services['postgres-replica'];
    const replicaPooler = compose.services['pgbouncer-replica'];
    expect(replica.image).toBe(postgres.image);
    expect(replica.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(replica.healthcheck).toBeDefined();
    // The same pooler, in the same mode, in front of the standby.
    expect(replicaPooler.image).toBe(pgbouncer.image);
    expect(replicaPooler.environment).toEqual({ ...pgbouncer.environment, DB_HOST: 'postgres-replica' });
    expect(replicaPooler.depends_on).toEqual({ 'postgres-replica': { condition: 'service_healthy' } });
    // The primary's first start creates the replication role and lets it replicate; the standby's
    // first start copies the primary as that role and leaves standby.signal (--write-recovery-conf).
    const primarySetup = mounted('postgres', '/docker-entrypoint-initdb.d/replication.sh');
    expect(primarySetup).toMatch(/CREATE ROLE replicator WITH LOGIN REPLICATION PASSWORD/);
    expect(primarySetup).toMatch(/host replication replicator all scram-sha-256/);
    const entrypoint = replica.entrypoint?.[1] ?? '';
    const standbySetup = mounted('postgres-replica', entrypoint);
    expect(standbySetup).toMatch(
      /pg_basebackup --host=postgres --port=5432 --username=replicator\s*\\\s*--pgdata="\$PGDATA" --wal-method=stream --write-recovery-conf/,
    );
    expect(standbySetup).toMatch(/^exec docker-entrypoint\.sh postgres$/m);
    expect(replica.volumes?.[0]).toMatch(/^postgres-replica-data:\/var\/lib\/postgresql\/data$/);
    expect(replica.environment?.PGPASSWORD).toBe(postgres.environment?.REPLICATION_PASSWORD);
  });

  it('reads from the primary unless DATABASE_READ_URL names the replica, as documented', () => {
    expect(validateEnv(compose.services.api.environment ?? {})).toMatchObject({
      DATABASE_READ_URL: undefined,
      DATABASE_READ_MAX_LAG_MS: 1000,
    });
    // The settings docs/DEPLOYING.md gives for the profile "replica".
    const deploying = read('docs/DEPLOYING.md');
    const documented = Object.fromEntries(
      ['COMPOSE_PROFILES', 'REPLICATION_PASSWORD', 'DATABASE_READ_URL', 'DATABASE_READ_MAX_LAG_MS'].map(
        (name) => [name, new RegExp(`^${name}=(\\S+)$`, 'm').exec(deploying)?.[1]],
      ),
    );
    expect(documented.COMPOSE_PROFILES).toBe('replica');
    const values = {
      ...required,
      ...documented,
      DATABASE_READ_URL: documented.DATABASE_READ_URL!.replace('${POSTGRES_PASSWORD}', 'secret'),
    } as Record<string, string>;
    const withReplica = parse(interpolate(read('docker-compose.yml'), values)) as typeof compose;
    const env = validateEnv(withReplica.services.api.environment ?? {});
    expect(env).toMatchObject({
      DATABASE_READ_URL: 'postgres://funnel_crm:secret@pgbouncer-replica:6432/funnel_crm',
      DATABASE_READ_MAX_LAG_MS: Number(documented.DATABASE_READ_MAX_LAG_MS),
    });
    // The host it names is the replica's pooler, listening on that port.
    const url = new URL(env.DATABASE_READ_URL!);
    expect(withReplica.services[url.hostname].profiles).toEqual(['replica']);
    expect(withReplica.services[url.hostname].environment?.LISTEN_PORT).toBe(url.port);
    expect(withReplica.services['postgres-replica'].environment?.PGPASSWORD).toBe(
      values.REPLICATION_PASSWORD,
    );
  });

  it('derives BASE_URL from the published PORT unless BASE_URL is set', () => {
    const apiOf = (values: Record<string, string>) =>
      (parse(interpolate(read('docker-compose.yml'), { ...required, ...values })) as typeof compose).services
        .api;
    expect(apiOf({}).environment?.BASE_URL).toBe('http://localhost:3000');
    const moved = apiOf({ PORT: '8080' });
    expect(moved.environment?.BASE_URL).toBe('http://localhost:8080');
    expect(moved.ports).toContain('8080:3000');
    expect(apiOf({ PORT: '8080', BASE_URL: 'https://crm.example.com' }).environment?.BASE_URL).toBe(
      'https://crm.example.com',
    );
  });

  it('documents admin CLI one-liners that name the compose service and the cluster workload', () => {
    const deploying = read('docs/DEPLOYING.md');
    const compose = /docker compose exec (\w+) node (scripts\/admin\.js) company create/.exec(deploying);
    expect(compose).not.toBeNull();
    expect(Object.keys(parse(read('docker-compose.yml')).services)).toContain(compose![1]);
    const cluster =
      /kubectl -n ([\w-]+) exec deploy\/([\w-]+) -c (\w+) -- node (scripts\/admin\.js) company create/.exec(
        deploying,
      );
    expect(cluster).not.toBeNull();
    const deployment = parse(read('deploy/k8s/base/deployment.yaml'));
    expect(cluster!.slice(1, 4)).toEqual([
      parse(read('deploy/k8s/overlays/production/kustomization.yaml')).namespace,
      deployment.metadata.name,
      deployment.spec.template.spec.containers[0].name,
    ]);
    // The image carries the CLI's launcher.
    expect(read('Dockerfile')).toMatch(/^COPY scripts \.\/scripts$/m);
    expect(deploying).toMatch(/node scripts\/admin\.js demo seed/);
  });

  it('starts compiled entry points that exist in the source tree', () => {
    const dockerfile = read('Dockerfile');
    const cmd = /^CMD \[(.*)\]$/m.exec(dockerfile)?.[1];
    const command = JSON.parse(`[${cmd}]`) as string[];
    const apiEntry = command[command.length - 1];
    expect(existsSync(join(root, sourceOf(apiEntry)))).toBe(true);
    // The image runs the service exactly as `npm run start:prod` does, V8 options included.
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(command.join(' ')).toBe(scripts['start:prod']);
    const migrateEntry = compose.services.migrate.command?.[1] ?? '';
    expect(existsSync(join(root, sourceOf(migrateEntry)))).toBe(true);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/HEALTHCHECK[\s\S]*\/health/);
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
