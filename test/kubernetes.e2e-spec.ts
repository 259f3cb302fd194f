import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { parse, parseAllDocuments } from 'yaml';
import { MetricsServer, validateEnv } from '@app/core';
import { startTestApp, TestApp } from './support/app';
import { typeErrors } from './support/k8s-types';

// Rendering, schema checks in a child process and migration runs from source take a while.
jest.setTimeout(120_000);

/* eslint-disable @typescript-eslint/no-explicit-any -- rendered manifests are read as plain data */
type K8sObject = Record<string, any>;

const root = join(__dirname, '..');
const k8s = join(root, 'deploy', 'k8s');
const overlays = ['base', ...readdirSync(join(k8s, 'overlays')).map((name) => `overlays/${name}`)];

/** Per object, null or why it does not validate against the Kubernetes schemas. */
function schemaErrors(objects: K8sObject[]): (string | null)[] {
  const output = execFileSync(process.execPath, [join(__dirname, 'support', 'validate-k8s.mjs')], {
    input: JSON.stringify(objects),
    encoding: 'utf8',
    timeout: 30_000,
  });
  return JSON.parse(output) as (string | null)[];
}

function render(overlay: string): K8sObject[] {
  const text = execFileSync('kubectl', ['kustomize', join(k8s, overlay)], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return parseAllDocuments(text).map((doc) => doc.toJS() as K8sObject);
}

const one = (objects: K8sObject[], kind: string) => {
  const found = objects.filter((o) => o.kind === kind);
  expect([kind, found.length]).toEqual([kind, 1]);
  return found[0];
};
const containersOf = (deployment: K8sObject): K8sObject[] => [
  ...(deployment.spec.template.spec.initContainers ?? []),
  ...deployment.spec.template.spec.containers,
];
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);

describe('The manifests field check', () => {
  it('names a misspelt or misplaced field at any depth, and a wrong type', () => {
    const deployment = render('base').find((o) => o.kind === 'Deployment')!;
    const withContainer = (change: (container: K8sObject) => K8sObject) => {
      const pod = deployment.spec.template.spec;
      const containers = pod.containers.map((c: K8sObject, i: number) => (i === 0 ? change(c) : c));
      return {
        ...deployment,
        spec: { ...deployment.spec, template: { ...deployment.spec.template, spec: { ...pod, containers } } },
      };
    };
    const [misspelt, misplaced, mistyped, sound] = typeErrors([
      withContainer(({ readinessProbe, ...c }) => ({ ...c, readinesProbe: readinessProbe })),
      { ...deployment, spec: { ...deployment.spec, maxSurge: 1 } },
      withContainer((c) => ({ ...c, ports: [{ name: 'http', containerPort: '3000' }] })),
      deployment,
    ]);
    expect(misspelt).toMatch(/'"readinesProbe"' does not exist in type 'Container'/);
    expect(misplaced).toMatch(/'"maxSurge"' does not exist in type 'DeploymentSpec'/);
    expect(mistyped).toMatch(
      /Type 'string' is not assignable to type 'number'. \(at "containerPort": "3000"\)/,
    );
    expect(sound).toBeNull();
  });
});

describe.each(overlays)('Kubernetes manifests: %s', (overlay) => {
  const objects = render(overlay);
  const deployment = one(objects, 'Deployment');
  const pod = deployment.spec.template.spec;
  const podLabels = deployment.spec.template.metadata.labels;
  const api = pod.containers.find((c: K8sObject) => c.name === 'api');
  const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'funnel-crm')!
    .data as Record<string, string>;
  const portNamed = (name: string) => api.ports.find((p: K8sObject) => p.name === name)?.containerPort;

  it('renders objects that validate against the Kubernetes schemas', () => {
    // The ServiceMonitor is a CRD of the Prometheus Operator: checked against the Service below.
    const core = objects.filter((o) => o.apiVersion !== 'monitoring.coreos.com/v1');
    expect(schemaErrors(core)).toEqual(core.map(() => null));
  });

  it('uses only fields the Kubernetes API knows, at every depth', () => {
    const core = objects.filter((o) => o.apiVersion !== 'monitoring.coreos.com/v1');
    expect(typeErrors(core)).toEqual(core.map(() => null));
  });

  it('runs a released image, never :latest', () => {
    // The nearest `images` entry up the chain of resources decides the release.
    const release = (dir: string): K8sObject => {
      const kustomization = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8'));
      if (kustomization.images) return kustomization.images[0];
      const parent = (kustomization.resources as string[]).find((r) => r.startsWith('..'));
      return release(join(dir, parent!));
    };
    const image = release(join(k8s, overlay));
    const ours = [api, pod.initContainers.find((c: K8sObject) => c.name === 'migrate')];
    for (const container of ours)
      expect(container.image).toBe(`${image.newName ?? image.name}:${image.newTag}`);
    // A sidecar (the pooler) runs a pinned release of its own.
    for (const container of containersOf(deployment)) expect(container.image).toMatch(/:(?!latest$)[\w.-]+$/);
  });

  it('gives every container the security settings, requests and limits', () => {
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(containersOf(deployment).length).toBeGreaterThanOrEqual(2);
    for (const container of containersOf(deployment)) {
      expect([container.name, container.securityContext]).toEqual([
        container.name,
        {
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          runAsNonRoot: true,
          capabilities: { drop: ['ALL'] },
          seccompProfile: { type: 'RuntimeDefault' },
        },
      ]);
      for (const kind of ['requests', 'limits']) {
        expect(Object.keys(container.resources[kind]).sort()).toEqual(['cpu', 'memory']);
      }
    }
  });

  it('migrates in an init container with the compiled migration command', () => {
    const migrate = pod.initContainers.find((c: K8sObject) => c.name === 'migrate');
    expect(migrate.image).toBe(api.image);
    const entry = (migrate.command as string[])[1];
    expect(existsSync(join(root, entry.replace(/^dist\//, '').replace(/\.js$/, '.ts')))).toBe(true);
    expect(migrate.envFrom).toEqual(api.envFrom);
  });

  it('probes the ports the service listens on and drains within the grace period', () => {
    expect(portNamed('http')).toBe(Number(config.PORT));
    expect(portNamed('metrics')).toBe(Number(config.METRICS_PORT));
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      expect([probe, api[probe].httpGet.port]).toEqual([probe, 'http']);
    }
    expect(api.readinessProbe.httpGet.path).toBe('/health');
    expect(api.livenessProbe.httpGet.path).toBe('/health/live');
    const preStop = api.lifecycle.preStop.sleep.seconds as number;
    const drainBound = 20;
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(
      preStop + Number(config.SHUTDOWN_DELAY_MS) / 1000 + drainBound,
    );
    expect(pod.topologySpreadConstraints.map((c: K8sObject) => c.topologyKey).sort()).toEqual([
      'kubernetes.io/hostname',
      'topology.kubernetes.io/zone',
    ]);
  });

  it('selects its own pods from the Service, budget, autoscaler and network policy', () => {
    const service = one(objects, 'Service');
    expect(matches(deployment.spec.selector.matchLabels, podLabels)).toBe(true);
    expect(matches(service.spec.selector, podLabels)).toBe(true);
    expect(service.spec.ports.map((p: K8sObject) => p.targetPort).sort()).toEqual(['http', 'metrics']);
    expect(matches(one(objects, 'PodDisruptionBudget').spec.selector.matchLabels, podLabels)).toBe(true);
    const hpa = one(objects, 'HorizontalPodAutoscaler');
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: deployment.metadata.name,
    });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);

    const policy = one(objects, 'NetworkPolicy');
    expect(matches(policy.spec.podSelector.matchLabels, podLabels)).toBe(true);
    const ingressPorts = policy.spec.ingress.flatMap((rule: K8sObject) =>
      rule.ports.map((p: K8sObject) => p.port),
    );
    expect(ingressPorts.sort()).toEqual(['http', 'metrics']);
    const egressPorts = policy.spec.egress.flatMap((rule: K8sObject) =>
      rule.ports.map((p: K8sObject) => p.port),
    );
    expect(egressPorts).toEqual(expect.arrayContaining([53, 5432, 6379, 443]));

    for (const monitor of objects.filter((o) => o.kind === 'ServiceMonitor')) {
      expect(matches(monitor.spec.selector.matchLabels, service.metadata.labels)).toBe(true);
      expect(service.spec.ports.map((p: K8sObject) => p.name)).toContain(monitor.spec.endpoints[0].port);
      expect(monitor.spec.endpoints[0].path).toBe('/metrics');
    }
  });

  it('configures the service with values it accepts in production', () => {
    const secret = parse(readFileSync(join(k8s, 'base/secret.example.yaml'), 'utf8')) as K8sObject;
    expect(schemaErrors([secret])).toEqual([null]);
    const env = validateEnv({
      ...config,
      ...secret.stringData,
      // the example's placeholder is not a key; a real one is 32 random bytes
      AUTOMATION_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
    });
    expect(env).toMatchObject({
      NODE_ENV: 'production',
      PORT: portNamed('http'),
      METRICS_PORT: portNamed('metrics'),
    });
  });
});

describe('Kubernetes manifests behind PgBouncer', () => {
  const objects = render('overlays/production-pgbouncer');
  const pod = one(objects, 'Deployment').spec.template.spec;
  const configMap = (name: string) =>
    objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === name)!.data as Record<string, string>;

  it('runs PgBouncer in transaction pooling as a native sidecar, and tells the service so', () => {
    const sidecar = pod.initContainers.find((c: K8sObject) => c.name === 'pgbouncer');
    // Started before the migrations and the api container, stopped after it.
    expect(pod.initContainers.map((c: K8sObject) => c.name)).toEqual(['pgbouncer', 'migrate']);
    expect(sidecar.restartPolicy).toBe('Always');
    const ini = configMap('funnel-crm-pgbouncer')['pgbouncer.ini'];
    expect(ini).toMatch(/^pool_mode = transaction$/m);
    expect(ini).toMatch(/^listen_addr = 127\.0\.0\.1$/m);
    expect(Number(/^listen_port = (\d+)$/m.exec(ini)?.[1])).toBe(sidecar.ports[0].containerPort);
    const env = validateEnv({
      ...configMap('funnel-crm'),
      DATABASE_URL: `postgres://funnel_crm:pw@127.0.0.1:${sidecar.ports[0].containerPort}/funnel_crm`,
      DATABASE_DIRECT_URL: 'postgres://funnel_crm:pw@postgres:5432/funnel_crm',
      OAUTH_CLIENT_ID: 'client',
    });
    expect(env.DATABASE_POOL_MODE).toBe('transaction');
  });
});

describe('Kubernetes manifests with a read replica', () => {
  const objects = render('overlays/production-read-replica');
  const pod = one(objects, 'Deployment').spec.template.spec;
  const api = pod.containers.find((c: K8sObject) => c.name === 'api');
  const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'funnel-crm')!
    .data as Record<string, string>;
  const readUrlOf = (container: K8sObject) =>
    (container.env ?? []).find((e: K8sObject) => e.name === 'DATABASE_READ_URL');

  it('reads the replica URL from the Secret and the staleness bound from the ConfigMap', () => {
    // The Secret the service takes DATABASE_URL from, by key: a Secret without it keeps the pod from starting.
    const secret = api.envFrom.find((from: K8sObject) => from.secretRef).secretRef.name;
    expect(readUrlOf(api)).toEqual({
      name: 'DATABASE_READ_URL',
      valueFrom: { secretKeyRef: { name: secret, key: 'DATABASE_READ_URL' } },
    });
    // Only the server reads; the migrations stay on the primary.
    expect(readUrlOf(pod.initContainers.find((c: K8sObject) => c.name === 'migrate'))).toBeUndefined();
    expect(config.DATABASE_READ_URL).toBeUndefined();
    const env = validateEnv({
      ...config,
      DATABASE_URL: 'postgres://funnel_crm:pw@127.0.0.1:6432/funnel_crm',
      DATABASE_DIRECT_URL: 'postgres://funnel_crm:pw@postgres:5432/funnel_crm',
      DATABASE_READ_URL: 'postgres://funnel_crm:pw@postgres-ro:5432/funnel_crm',
      OAUTH_CLIENT_ID: 'client',
    });
    expect(env).toMatchObject({ DATABASE_POOL_MODE: 'transaction', DATABASE_READ_MAX_LAG_MS: 1000 });
    expect(config.DATABASE_READ_MAX_LAG_MS).toBe('1000');
  });

  it('keeps the pooler sidecar of the overlay it builds on, and the other overlays read from the primary', () => {
    expect(pod.initContainers.map((c: K8sObject) => c.name)).toEqual(['pgbouncer', 'migrate']);
    for (const overlay of overlays.filter((o) => o !== 'overlays/production-read-replica')) {
      const others = render(overlay);
      expect([overlay, readUrlOf(one(others, 'Deployment').spec.template.spec.containers[0])]).toEqual([
        overlay,
        undefined,
      ]);
    }
  });

  it('is the overlay and the Secret key docs/DEPLOYING.md gives', () => {
    const deploying = readFileSync(join(root, 'docs', 'DEPLOYING.md'), 'utf8');
    expect(deploying).toContain('kubectl apply -k deploy/k8s/overlays/production-read-replica');
    expect(deploying).toMatch(/"stringData":\{"DATABASE_READ_URL":"postgres:\/\/[^"]+"\}/);
    expect(deploying).toContain("`DATABASE_READ_MAX_LAG_MS: '1000'`");
  });
});

describe('Kubernetes probes against the running service', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('answers 200 on every probe path and serves the scraped path on the metrics port', async () => {
    // Rendered first: a render takes seconds on a busy machine, long enough for the server to close
    // an idle keep-alive connection as the next request reuses it.
    for (const objects of overlays.map(render)) {
      const api = one(objects, 'Deployment').spec.template.spec.containers[0];
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
        expect((await fetch(`${t.baseUrl}${api[probe].httpGet.path}`)).status).toBe(200);
      }
      const path = objects.find((o) => o.kind === 'ServiceMonitor')?.spec.endpoints[0].path ?? '/metrics';
      const port = t.app.get(MetricsServer).port;
      expect((await fetch(`http://127.0.0.1:${port}${path}`)).status).toBe(200);
    }
  });

  it('refuses an object the schema does not allow (the validation is real)', () => {
    const deployment = one(render('base'), 'Deployment');
    deployment.spec.replicas = 'two';
    expect(schemaErrors([deployment])).toEqual([expect.stringContaining('replicas must be integer')]);
  });
});

describe('Migrations in the init containers of pods starting together', () => {
  it('apply each migration once, the later pod waiting for the earlier one', async () => {
    const admin = new URL(process.env.TEST_DATABASE_URL!);
    admin.pathname = '/postgres';
    const name = `empty_${Date.now().toString(36)}`;
    const client = new Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    const url = new URL(admin);
    url.pathname = `/${name}`;
    try {
      const migrate = () =>
        new Promise<number | null>((resolve) => {
          const child = spawn(process.execPath, [join(root, 'scripts', 'migrate.js')], {
            cwd: root,
            env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: url.toString() },
            stdio: ['ignore', 'ignore', 'inherit'],
          });
          child.once('exit', resolve);
        });
      expect(await Promise.all([migrate(), migrate()])).toEqual([0, 0]);
      const db = new Client({ connectionString: url.toString() });
      await db.connect();
      const { rows } = await db
        .query<{ name: string }>('SELECT name FROM migrations ORDER BY id')
        .finally(() => db.end());
      const files = readdirSync(join(root, 'db/migrations'));
      expect(rows).toHaveLength(files.length);
      expect(new Set(rows.map((row) => row.name)).size).toBe(files.length);
    } finally {
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    }
  });
});
