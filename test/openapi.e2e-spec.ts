import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenAPIObject } from '@nestjs/swagger';
import { PERMISSIONS } from '@app/auth';
import { generateOpenApiDocument, serializeOpenApi } from '../apps/api/src/openapi';
import { startTestApp } from './support/app';
import { createTenant } from './support/factories';

const COMMITTED = join(__dirname, '..', 'openapi.json');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Operation = {
  summary?: string;
  parameters?: { name: string; in: string; description?: string; schema?: Record<string, unknown> }[];
  requestBody?: unknown;
  security?: Record<string, string[]>[];
  responses: Record<
    string,
    {
      description?: string;
      content?: Record<string, { schema?: unknown; examples?: Record<string, { value: unknown }> }>;
    }
  >;
};

const operations = (document: OpenAPIObject) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({
      path,
      method,
      op: item[method] as unknown as Operation,
    })),
  );

/** Which operations differ between two documents, for a readable failure. */
function differences(actual: OpenAPIObject, expected: OpenAPIObject): string[] {
  const index = (d: OpenAPIObject) =>
    new Map(operations(d).map((o) => [`${o.method.toUpperCase()} ${o.path}`, JSON.stringify(o.op)]));
  const [a, e] = [index(actual), index(expected)];
  const keys = [...new Set([...a.keys(), ...e.keys()])];
  const changed = keys
    .filter((k) => a.get(k) !== e.get(k))
    .map((k) => (!e.has(k) ? `+ ${k}` : !a.has(k) ? `- ${k}` : `~ ${k}`));
  if (JSON.stringify(actual.components) !== JSON.stringify(expected.components)) changed.push('~ components');
  if (JSON.stringify(actual.info) !== JSON.stringify(expected.info)) changed.push('~ info');
  return changed;
}

describe('OpenAPI document', () => {
  let generated: OpenAPIObject;

  beforeAll(async () => {
    generated = await generateOpenApiDocument();
  });

  it('is generated the same way every time', async () => {
    expect(serializeOpenApi(await generateOpenApiDocument())).toBe(serializeOpenApi(generated));
  });

  it('matches the committed openapi.json', () => {
    const committed = readFileSync(COMMITTED, 'utf8');
    if (serializeOpenApi(generated) !== committed) {
      const changed = differences(generated, JSON.parse(committed) as OpenAPIObject);
      throw new Error(
        'openapi.json is out of date with the code: run `npm run openapi:generate` and commit openapi.json.\n' +
          `Differences (+ new in code, - gone from code, ~ changed):\n  ${changed.join('\n  ') || '(formatting only)'}`,
      );
    }
    expect(serializeOpenApi(generated)).toBe(committed);
  });

  it('is what the running service serves at /docs-json', async () => {
    const t = await startTestApp();
    try {
      const served = await (await fetch(`${t.baseUrl}/docs-json`)).json();
      expect(served).toEqual(JSON.parse(serializeOpenApi(generated)));
    } finally {
      await t.close();
    }
  });

  it("documents on every /v1 route the 403 its guard answers to a key without the route's permission", async () => {
    const t = await startTestApp();
    try {
      const tenant = await createTenant(t.app);
      for (const { path, method, op } of operations(generated).filter((o) => o.path.startsWith('/v1/'))) {
        const examples = Object.values(op.responses['403'].content!['application/json'].examples!);
        expect([`${method} ${path}`, examples]).toEqual([`${method} ${path}`, [expect.anything()]]);
        const documented = examples[0].value as { error: string };
        const permission = PERMISSIONS.find((p) => documented.error.endsWith(`: ${p}`))!;
        const key = await tenant.keyFor(...PERMISSIONS.filter((p) => p !== permission));
        // The guard answers before any parameter is read, so any id will do.
        const url = path.replace(/\{[^}]+\}/g, tenant.funnelId);
        const res = await fetch(`${t.baseUrl}${url}`, {
          method: method.toUpperCase(),
          headers: { 'x-service-api-key': key, 'content-type': 'application/json' },
          body: op.requestBody ? '{}' : undefined,
        });
        expect([`${method} ${path}`, res.status, await res.json()]).toEqual([
          `${method} ${path}`,
          403,
          documented,
        ]);
      }
    } finally {
      await t.close();
    }
  });

  it('gives every error response of every route the error body schema, and 500 everywhere', () => {
    for (const { path, method, op } of operations(generated)) {
      expect([`${method} ${path}`, op.responses['500']]).toEqual([`${method} ${path}`, expect.anything()]);
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        expect([`${method} ${path} ${status}`, response.content?.['application/json']?.schema]).toEqual([
          `${method} ${path} ${status}`,
          expect.anything(),
        ]);
      }
    }
  });

  it('documents 401 (unless public), 403, 429 and 500 on every /v1 route, and 400 and 413 where there is a body', () => {
    for (const { path, method, op } of operations(generated).filter((o) => o.path.startsWith('/v1/'))) {
      // The public routes of funnel pages need no key: their 403 is the page's origin.
      const authenticated = (op.security ?? []).length > 0;
      const expected = [
        ...(authenticated ? ['401'] : []),
        '403',
        '429',
        '500',
        ...(op.requestBody ? ['400', '413'] : []),
      ];
      expect([`${method} ${path}`, Object.keys(op.responses)]).toEqual([
        `${method} ${path}`,
        expect.arrayContaining(expected),
      ]);
    }
  });

  it('documents the 401, 403 (origin) and per-token 429 of POST /mcp', () => {
    const mcp = operations(generated).find((o) => o.method === 'post' && o.path === '/mcp')!.op;
    expect(Object.keys(mcp.responses)).toEqual(expect.arrayContaining(['401', '403', '429']));
  });

  it('documents the webhook subscription routes, each needing webhooks:write', () => {
    const ops = operations(generated).filter((o) => o.path.startsWith('/v1/funnels/{funnelId}/webhooks'));
    expect(ops.map((o) => `${o.method} ${o.path}`).sort()).toEqual([
      'delete /v1/funnels/{funnelId}/webhooks/{webhookId}',
      'get /v1/funnels/{funnelId}/webhooks',
      'get /v1/funnels/{funnelId}/webhooks/{webhookId}',
      'post /v1/funnels/{funnelId}/webhooks',
    ]);
    for (const { op } of ops) {
      expect(op.summary).toBeTruthy();
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '404']));
      expect(JSON.stringify(op)).toContain('webhooks:write');
    }
    const create = ops.find((o) => o.method === 'post')!.op;
    expect(create.responses['201']).toMatchObject({ headers: { Location: expect.anything() } });
  });

  describe('contacts routes', () => {
    const contactOps = () =>
      operations(generated).filter((o) => o.path.startsWith('/v1/funnels/{funnelId}/contacts'));

    it('document a summary, every path parameter and the 400 and 404 answers', () => {
      expect(
        contactOps()
          .map((o) => `${o.method} ${o.path}`)
          .sort(),
      ).toEqual(
        [
          'get /v1/funnels/{funnelId}/contacts',
          'post /v1/funnels/{funnelId}/contacts',
          'post /v1/funnels/{funnelId}/contacts/batch',
          'post /v1/funnels/{funnelId}/contacts/search',
          'get /v1/funnels/{funnelId}/contacts/export',
          'get /v1/funnels/{funnelId}/contacts/{contactId}',
          'patch /v1/funnels/{funnelId}/contacts/{contactId}',
          'delete /v1/funnels/{funnelId}/contacts/{contactId}',
          'put /v1/funnels/{funnelId}/contacts/{contactId}/email-subscription',
          'put /v1/funnels/{funnelId}/contacts/{contactId}/values',
        ].sort(),
      );
      for (const { op } of contactOps()) {
        expect(op.summary).toBeTruthy();
        for (const param of op.parameters!.filter((p) => p.in === 'path')) {
          expect(param).toMatchObject({ description: expect.any(String), schema: { format: 'uuid' } });
        }
        expect(Object.keys(op.responses)).toEqual(
          expect.arrayContaining(['400', '401', '403', '404', '429', '500']),
        );
      }
    });

    it('document the list constraints and defaults', () => {
      const list = contactOps().find(
        (o) => o.method === 'get' && o.path === '/v1/funnels/{funnelId}/contacts',
      )!.op;
      const schema = (name: string) => list.parameters!.find((p) => p.name === name)!.schema;
      expect(schema('page')).toMatchObject({ type: 'integer', minimum: 0, default: 0 });
      expect(schema('limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 50 });
      expect(schema('sortField')).toMatchObject({
        enum: ['ps_converted_at', 'email', 'firstName', 'lastName', 'updatedAt'],
        default: 'ps_converted_at',
      });
      expect(schema('sortOrder')).toMatchObject({ enum: [-1, 1], default: -1 });
      expect(schema('cursor')).toMatchObject({ type: 'string', maxLength: 1000 });
      for (const filter of ['email', 'phone', 'status'])
        expect(schema(filter)).toMatchObject({ type: 'string' });
      for (const filter of ['updatedAfter', 'createdAfter'])
        expect(schema(filter)).toMatchObject({ type: 'string', format: 'date-time' });
    });

    it('document the batch answers: 200, 207 and the per-item results', () => {
      const batch = contactOps().find((o) => o.path.endsWith('/batch'))!.op;
      expect(Object.keys(batch.responses)).toEqual(
        expect.arrayContaining(['200', '207', '400', '404', '422']),
      );
      expect(batch.parameters!.find((p) => p.name === 'Idempotency-Key')).toMatchObject({ in: 'header' });
    });

    it('document the Idempotency-Key header and the 422 answer of creation', () => {
      const create = contactOps().find(
        (o) => o.method === 'post' && o.path === '/v1/funnels/{funnelId}/contacts',
      )!.op;
      expect(create.parameters!.find((p) => p.name === 'Idempotency-Key')).toMatchObject({ in: 'header' });
      expect(create.responses['201']).toBeDefined();
      expect(create.responses['422']).toBeDefined();
    });
  });
});
