import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { ContactPropertyValuesFiller } from '@app/contacts';
import { SegmentFolder } from '@app/metrics';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { Draft, FuzzIds, hostileDraft, validDraft } from './support/fuzz/request-arbitraries';
import { loadOpenApi, Operation, operationsOf, schemaProblems } from './support/fuzz/openapi-schema';
import { fingerprintQuery } from './support/table-fingerprint';
import { startTokenIssuer, TestTokenIssuer } from './support/token-issuer';

// Generated requests per operation; FUZZ_RUNS raises it for a longer local run.
const RUNS = Number(process.env.FUZZ_RUNS ?? 50);
const AUDIENCE = 'https://api.funnel.example';
const NAMESPACE = 'https://funnel.example';

const doc = loadOpenApi();
const operations = operationsOf(doc);

// Lone surrogates cannot be percent-encoded by encodeURIComponent; send their UTF-8 replacement.
interface ErrorShape {
  error?: unknown;
  status?: unknown;
}

const segment = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...Buffer.from(value)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
};

/**
 * Requests generated from openapi.json alone (a new route is covered by regenerating the document):
 * valid ones, and ones with a single hostile change. Whatever is sent: no 5xx, only statuses the
 * document lists for the operation, error bodies in the documented shape, and a refused request
 * leaves every table as it was.
 */
describe('Every operation of openapi.json under generated requests', () => {
  let issuer: TestTokenIssuer;
  let t: TestApp;
  let acme: TenantFixture;
  let ids: FuzzIds;
  let credentials: Record<'api-key' | 'bearer', Record<'ok' | 'invalid' | 'weak', string>>;
  let fingerprint: () => Promise<string>;
  const tally: Record<
    string,
    { cases: number; statuses: Record<string, number>; mutations: Record<string, number> }
  > = {};

  beforeAll(async () => {
    issuer = await startTokenIssuer({ audience: AUDIENCE });
    t = await startTestApp({
      IDP_URL: issuer.url,
      OAUTH_CLIENT_ID: 'shared-client-id',
      OAUTH_AUDIENCE: AUDIENCE,
      OAUTH_CLAIM_NAMESPACE: NAMESPACE,
      // Nothing may change the tables behind the suite's back.
      AUTOMATION_WORKER_ENABLED: 'false',
      // Public routes are limited per client address: each request comes from its own (X-Forwarded-For).
      TRUST_PROXY: 'true',
    });
    // Nor the segment folds, which move their watermarks every minute whatever the requests.
    await t.app.get(SegmentFolder).stop();
    acme = await createTenant(t.app);
    const globex = await createTenant(t.app);
    const contact = async (tenant: TenantFixture) => {
      const res = await fetch(`${t.baseUrl}/v1/funnels/${tenant.funnelId}/contacts`, {
        method: 'POST',
        headers: { 'x-service-api-key': tenant.key, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'fixture@example.com' }),
      });
      return ((await res.json()) as { data: { id: string } }).data.id;
    };
    ids = {
      own: { funnelId: [acme.funnelId], contactId: [await contact(acme)] },
      foreign: [globex.funnelId, await contact(globex)],
    };
    const claims = (companyId: string) => ({
      [`${NAMESPACE}/user_metadata`]: { companyId, subscriptionId: 's' },
    });
    credentials = {
      'api-key': { ok: acme.key, invalid: 'fk_not_a_key', weak: await acme.keyFor('events:write') },
      bearer: {
        ok: await issuer.sign(claims(acme.companyId)),
        invalid: 'not.a.token',
        weak: await issuer.sign(claims(acme.companyId), { key: 'unpublished' }),
      },
    };
    const sql = await fingerprintQuery(t.app.get(DataSource));
    fingerprint = async () => JSON.stringify(await t.app.get(DataSource).query(sql));
  });

  afterAll(async () => {
    const cases = Object.values(tally).reduce((sum, op) => sum + op.cases, 0);
    console.log(
      `generated ${cases} requests over ${Object.keys(tally).length} operations\n` +
        Object.entries(tally)
          .map(
            ([op, { cases: n, statuses, mutations }]) =>
              `  ${op}: ${n} (${JSON.stringify(statuses)}; ${JSON.stringify(mutations)})`,
          )
          .join('\n'),
    );
    await t?.close();
    await issuer?.close();
  });

  let clients = 0;
  const send = async (op: Operation, draft: Draft) => {
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => segment(draft.pathParams[name] ?? 'x'));
    const query = new URLSearchParams(draft.query).toString();
    const headers: Record<string, string> = { ...draft.headers };
    if (draft.body !== undefined) headers['content-type'] = 'application/json';
    headers['x-forwarded-for'] = `10.${(++clients >> 16) & 255}.${(clients >> 8) & 255}.${clients & 255}`;
    if (op.path === '/mcp') headers.accept = 'application/json, text/event-stream';
    if (op.security !== 'none' && draft.auth !== 'none') {
      const secret = credentials[op.security][draft.auth];
      if (op.security === 'api-key') headers['x-service-api-key'] = secret;
      else headers.authorization = `Bearer ${secret}`;
    }
    const res = await fetch(`${t.baseUrl}${path}${query ? `?${query}` : ''}`, {
      method: op.method,
      headers,
      body: draft.body,
      redirect: 'manual',
    });
    const text = await res.text();
    return { status: res.status, text };
  };

  it('covers every operation the document lists', () => {
    expect(operations.length).toBeGreaterThanOrEqual(18);
    expect(operations.filter((op) => op.body).length).toBeGreaterThanOrEqual(4);
  });

  it.each(operations.map((op) => [`${op.method} ${op.path}`, op] as const))(
    '%s: no 5xx, documented statuses and bodies, refused requests change nothing',
    async (name, op) => {
      const entry: (typeof tally)[string] = { cases: 0, statuses: {}, mutations: {} };
      tally[name] = entry;
      // A number or date definition has its values copied after it answers: a request's state is
      // the tables once that copy is done.
      const settled = async () => {
        await t.app.get(ContactPropertyValuesFiller).idle();
        return fingerprint();
      };
      let previous = await settled();
      const requests = fc.oneof(
        { weight: 1, arbitrary: validDraft(doc, op, ids) },
        { weight: 3, arbitrary: hostileDraft(doc, op, ids) },
      );
      await fc.assert(
        fc.asyncProperty(requests, async (draft) => {
          const { status, text } = await send(op, draft);
          entry.cases++;
          entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
          entry.mutations[draft.mutation] = (entry.mutations[draft.mutation] ?? 0) + 1;
          const after = await settled();
          // A dot segment ('..') as a path value is resolved by the URL itself: the request reaches
          // another path (another route, or none), so a refusal in the error shape is expected, or
          // for a read the other route's answer, changing nothing.
          const traversed = Object.values(draft.pathParams).some((v) => v === '.' || v === '..');
          const documented = traversed
            ? ['400', '401', '403', '404', '405', '429', ...(op.method === 'GET' ? ['200'] : [])]
            : Object.keys(op.responses);
          const problems: string[] = [];
          if (status >= 500) problems.push(`answered ${status}`);
          if (!documented.includes(String(status)))
            problems.push(`${status} is not documented (${documented.join(', ')})`);
          if (status >= 400) {
            let body: unknown;
            try {
              body = JSON.parse(text);
            } catch {
              problems.push(`error body is not JSON: ${text.slice(0, 80)}`);
            }
            if (body !== undefined && traversed) {
              if (!(body as ErrorShape).error || (body as ErrorShape).status !== status)
                problems.push(`error body is not {error,status}: ${text.slice(0, 80)}`);
            } else if (body !== undefined) {
              problems.push(...schemaProblems(doc, op.responses[String(status)], body));
            }
            if (after !== previous) problems.push('a refused request changed the tables');
          } else if (traversed && after !== previous) problems.push('a traversed read changed the tables');
          if (({} as Record<string, unknown>).polluted !== undefined)
            problems.push('Object.prototype was polluted');
          previous = after;
          expect({ request: { ...draft, body: draft.body?.slice(0, 200) }, status, problems }).toEqual({
            request: expect.anything(),
            status,
            problems: [],
          });
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
      expect(entry.cases).toBeGreaterThanOrEqual(RUNS);
    },
  );
});
