import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { connectMcpClient, MCP_AUDIENCE, MCP_CLAIM_NAMESPACE } from './support/mcp-stack';
import { startTokenIssuer, TestTokenIssuer } from './support/token-issuer';

jest.setTimeout(120_000);

// Text an attacker controls: it must never reach the log at error level.
const MARK = 'forged-cursor-mark';
const SORT_FIELDS = ['updatedAt', 'ps_converted_at', 'email'] as const;
type SortField = (typeof SORT_FIELDS)[number];

const decode = (cursor: string) =>
  JSON.parse(Buffer.from(cursor, 'base64url').toString()) as Record<string, unknown>;
const encode = (body: unknown) => Buffer.from(JSON.stringify(body)).toString('base64url');

/** Forgeries of a real cursor that keep its query (so only the position is wrong), fixed and random. */
function forgeries(real: string, count: number): string[] {
  const body = decode(real);
  const fixed = [
    { v: `${MARK} not a time` },
    { v: `2026-02-30 00:00:00+00 ${MARK}` },
    { v: '2026-02-30 00:00:00+00' },
    { v: '2026-01-01 24:00:00+00' },
    { v: '294276-12-31 23:00:00-05' },
    { v: '4714-01-01 00:00:00+00 BC' },
    { v: '-infinity' },
    { v: `${MARK}\u0000` },
    { v: 12 },
    { i: `${MARK}'::uuid` },
    { p: -1 },
  ].map((members) => encode({ ...body, ...members }));
  const random = Array.from({ length: count }, () => {
    const text = Array.from({ length: 1 + Math.floor(Math.random() * 40) }, () =>
      String.fromCharCode(Math.floor(Math.random() * 0x2fff)),
    ).join('');
    const v = Math.random() < 0.5 ? `${MARK}${text}` : text.slice(0, 19).replace(/\D/g, '1');
    return encode({ ...body, v, i: Math.random() < 0.9 ? body.i : randomUUID() });
  });
  return [...fixed, ...random, `${MARK}!!`, encode({ ...body, f: 'email', h: MARK })];
}

describe('A forged cursor is a 400 naming cursor, on every door', () => {
  let issuer: TestTokenIssuer;
  let t: TestApp;
  let acme: TenantFixture;
  let mcp: Client;
  const errorLines: string[] = [];

  beforeAll(async () => {
    issuer = await startTokenIssuer({ audience: MCP_AUDIENCE });
    t = await startTestApp(
      {
        IDP_URL: issuer.url,
        OAUTH_CLIENT_ID: 'shared-client-id',
        OAUTH_AUDIENCE: MCP_AUDIENCE,
        OAUTH_CLAIM_NAMESPACE: MCP_CLAIM_NAMESPACE,
      },
      undefined,
      { write: (line: string) => void errorLines.push(line) },
    );
    acme = await createTenant(t.app);
    const api = httpClient(t.baseUrl, acme.key);
    for (const email of ['ada@example.com', 'bob@example.com', 'cy@example.com'])
      expect((await api.post(`/v1/funnels/${acme.funnelId}/contacts`, { email })).status).toBe(201);
    mcp = (await connectMcpClient(t, issuer, acme.companyId, 'cursor-forgery')).client;
  });
  afterAll(async () => {
    await mcp?.close();
    await t?.close();
    await issuer?.close();
  });

  const api = () => httpClient(t.baseUrl, acme.key);
  const listPath = (sortField: SortField, cursor?: string) =>
    `/v1/funnels/${acme.funnelId}/contacts?limit=1&sortField=${sortField}` +
    (cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`);
  const searchPath = () => `/v1/funnels/${acme.funnelId}/contacts/search`;

  /** Every reply that is neither a page nor a 400 naming cursor. */
  async function wrongAnswers(
    forged: string[],
    send: (cursor: string) => Promise<{ ok: boolean; error?: string }>,
  ): Promise<string[]> {
    const wrong: string[] = [];
    for (const cursor of forged) {
      const reply = await send(cursor);
      if (!reply.ok && !reply.error?.startsWith('cursor ')) wrong.push(`${cursor}: ${reply.error}`);
    }
    return wrong;
  }

  it.each(SORT_FIELDS)('GET …/contacts sorted by %s', async (sortField) => {
    const real = (await api().get(listPath(sortField))).body.meta.nextCursor as string;
    expect((await api().get(listPath(sortField, real))).status).toBe(200);
    const wrong = await wrongAnswers(forgeries(real, 40), async (cursor) => {
      const res = await api().get(listPath(sortField, cursor));
      return { ok: res.status === 200, error: res.status === 400 ? res.body.error : `${res.status}` };
    });
    expect(wrong).toEqual([]);
  });

  it.each(SORT_FIELDS)('POST …/contacts/search sorted by %s', async (sortField) => {
    const body = { limit: 1, sortField };
    const real = (await api().post(searchPath(), body)).body.meta.nextCursor as string;
    expect((await api().post(searchPath(), { ...body, cursor: real })).status).toBe(200);
    const wrong = await wrongAnswers(forgeries(real, 40), async (cursor) => {
      const res = await api().post(searchPath(), { ...body, cursor });
      return { ok: res.status === 200, error: res.status === 400 ? res.body.error : `${res.status}` };
    });
    expect(wrong).toEqual([]);
  });

  const callTool = async (name: string, args: Record<string, unknown>) => {
    const result = await mcp.callTool({ name, arguments: { funnelId: acme.funnelId, ...args } });
    const text = (result.content as { type: string; text: string }[])[0]?.text;
    return result.isError
      ? { ok: false, error: text }
      : {
          ok: true,
          nextCursor: (result.structuredContent as { meta: { nextCursor?: string } }).meta.nextCursor,
        };
  };

  it.each(['list_contacts', 'search_contacts'])('MCP %s', async (tool) => {
    for (const sortField of SORT_FIELDS) {
      const first = await callTool(tool, { limit: 1, sortField });
      expect(first.ok).toBe(true);
      const wrong = await wrongAnswers(forgeries(first.nextCursor!, 15), (cursor) =>
        callTool(tool, { limit: 1, sortField, cursor }),
      );
      expect(wrong).toEqual([]);
    }
  });

  it('writes nothing a forger sent to the log at error level', () => {
    expect(errorLines.filter((line) => line.includes(MARK))).toEqual([]);
    expect(errorLines.filter((line) => /"level":(50|60)/.test(line) && line.includes('cursor'))).toEqual([]);
  });
});
