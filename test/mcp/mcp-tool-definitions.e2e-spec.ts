import { Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import { mcpToFunctionTool, setSensitiveDataLoggingEnabled, type MCPServer } from '@openai/agents-core';
import type { TestApp } from '../support/app';
import { createTenant, TenantFixture } from '../support/factories';
import { httpClient } from '../support/http-client';
import { MCP_CLAIM_NAMESPACE, startMcpApp } from '../support/mcp-stack';
import type { TestTokenIssuer } from '../support/token-issuer';

jest.setTimeout(120_000);

type Schema = Record<string, unknown>;

// OpenAI's function-calling API refuses a longer tool description.
const MAX_DESCRIPTION = 1024;
// The custom properties of a contact: their names are the user's, so the map stays open, and the
// OpenAI Agents SDK calls these two tools without strict mode.
const OPEN_MAPS = ['update_contact.properties', 'upsert_contacts.contacts[].properties'];
const NOT_STRICT = ['update_contact', 'upsert_contacts'];
const PERIOD = { from: '2026-03-01', to: '2026-03-31' };

/** Every schema node of a tool's input schema with its path (`tool.arg[].part`). */
function nodes(schema: unknown, path: string): [string, Schema][] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  const node = schema as Schema;
  const below: [string, Schema][] = [];
  for (const [name, child] of Object.entries((node.properties as Schema | undefined) ?? {}))
    below.push(...nodes(child, `${path}.${name}`));
  below.push(...nodes(node.items, `${path}[]`), ...nodes(node.additionalProperties, `${path}{}`));
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    for (const branch of (node[key] as unknown[] | undefined) ?? []) below.push(...nodes(branch, path));
  return [[path, node], ...below];
}

/** The rules a tool breaks, as `path: rule` lines (none for a tool every host accepts). */
function brokenRules(tool: Tool): string[] {
  const broken: string[] = [];
  if ((tool.description ?? '').length > MAX_DESCRIPTION)
    broken.push(`${tool.name}: description of ${tool.description!.length} characters`);
  for (const [path, node] of nodes(tool.inputSchema, tool.name)) {
    for (const keyword of ['$schema', 'propertyNames', 'oneOf', 'allOf', 'not', 'patternProperties'])
      if (keyword in node) broken.push(`${path}: ${keyword}`);
    if (Array.isArray(node.type)) broken.push(`${path}: type list ${JSON.stringify(node.type)}`);
    const isObject = node.type === 'object' || 'properties' in node;
    const closed = node.additionalProperties === false;
    if (isObject && 'properties' in node && !closed) broken.push(`${path}: object not closed`);
    if (isObject && !('properties' in node) && !OPEN_MAPS.includes(path)) broken.push(`${path}: open map`);
  }
  const funnelId = (tool.inputSchema.properties as Record<string, Schema> | undefined)?.funnelId;
  if (funnelId && funnelId['x-mcp-header'] !== 'Funnel-Id')
    broken.push(`${tool.name}.funnelId: not declared as the Mcp-Param-Funnel-Id header`);
  return broken;
}

/** How the OpenAI Agents SDK turns the listed tool into a function tool with strict schemas on. */
function agentsSdkTool(tool: Tool) {
  const server = { name: 'funnel-crm' } as MCPServer;
  return mcpToFunctionTool(tool as Parameters<typeof mcpToFunctionTool>[0], server, true);
}

const REVISIONS = [
  ['2025-11-25', undefined],
  ['2026-07-28', { mode: { pin: '2026-07-28' } }],
] as const;

/** Tool definitions every host accepts: Gemini's schema subset, OpenAI's limits and strict mode. */
describe('MCP tool definitions', () => {
  let issuer: TestTokenIssuer;
  let t: TestApp;
  let acme: TenantFixture;
  let token: string;
  let contactId: string;

  /** The v2 client; `rewrite` may change the headers of each request it sends. */
  const connect = async (
    negotiation?: (typeof REVISIONS)[number][1],
    rewrite: (headers: Headers) => void = () => undefined,
  ) => {
    const client = new Client(
      { name: 'tool-definitions-e2e', version: '1.0.0' },
      negotiation && { versionNegotiation: negotiation },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: (url, init) => {
          const headers = new Headers(init?.headers);
          rewrite(headers);
          return fetch(url, { ...init, headers });
        },
      }),
    );
    return client;
  };

  beforeAll(async () => {
    ({ issuer, t } = await startMcpApp());
    acme = await createTenant(t.app);
    token = await issuer.sign({
      [`${MCP_CLAIM_NAMESPACE}/user_metadata`]: { companyId: acme.companyId, subscriptionId: 's' },
    });
    const created = await httpClient(t.baseUrl, acme.key).post(`/v1/funnels/${acme.funnelId}/contacts`, {
      email: 'definitions@example.com',
    });
    expect(created.status).toBe(201);
    contactId = created.body.data.id;
  });
  afterAll(async () => {
    await t?.close();
    await issuer?.close();
  });

  describe.each(REVISIONS)('listed in revision %s', (revision, negotiation) => {
    let client: Client;
    let tools: Tool[];

    beforeAll(async () => {
      client = await connect(negotiation);
      expect(client.getNegotiatedProtocolVersion()).toBe(revision);
      ({ tools } = await client.listTools());
      expect(tools.length).toBeGreaterThan(10);
    });
    afterAll(async () => {
      await client?.close();
    });

    it('keeps every description within 1,024 characters, every schema within the subset Gemini accepts, every fixed object closed', () => {
      expect(tools.flatMap(brokenRules)).toEqual([]);
    });

    it('declares funnelId as the Mcp-Param-Funnel-Id header on every tool that takes it', () => {
      const takingFunnelId = tools.filter((tool) => 'funnelId' in (tool.inputSchema.properties ?? {}));
      expect(takingFunnelId.map((tool) => tool.name).sort()).toEqual(
        tools
          .map((tool) => tool.name)
          .filter((name) => name !== 'list_workspaces')
          .sort(),
      );
      for (const tool of takingFunnelId)
        expect([tool.name, (tool.inputSchema.properties as Record<string, Schema>).funnelId]).toEqual([
          tool.name,
          expect.objectContaining({ type: 'string', 'x-mcp-header': 'Funnel-Id' }),
        ]);
    });

    it("converts every tool to the OpenAI Agents SDK's strict mode, but the two that take open custom-property maps", () => {
      // The SDK logs why it falls back to a non-strict tool (the error itself once the redaction of
      // tool data is off); the reason must be the open map.
      setSensitiveDataLoggingEnabled(true);
      const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        const converted = tools.map((tool) => [tool.name, agentsSdkTool(tool)] as const);
        expect(converted.filter(([, fn]) => !fn.strict).map(([name]) => name)).toEqual(NOT_STRICT);
        const reasons = warn.mock.calls.map((args) => String((args[1] as Error | undefined)?.message));
        expect(reasons).toEqual(NOT_STRICT.map(() => expect.stringMatching(/open JSON schema object/)));
        for (const [name, fn] of converted.filter(([, f]) => f.strict))
          expect([name, fn.parameters]).toEqual([
            name,
            expect.objectContaining({ type: 'object', additionalProperties: false }),
          ]);
      } finally {
        warn.mockRestore();
        setSensitiveDataLoggingEnabled(false);
      }
    });
  });

  it('mirrors funnelId into Mcp-Param-Funnel-Id on every funnel tool in 2026-07-28, and the server refuses a header that disagrees', async () => {
    const sent: string[] = [];
    let forged: string | undefined;
    const client = await connect(REVISIONS[1][1], (headers) => {
      const header = headers.get('mcp-param-funnel-id');
      if (header === null) return;
      sent.push(header);
      if (forged) headers.set('mcp-param-funnel-id', forged);
    });
    try {
      const { tools } = await client.listTools();
      const funnelTools = tools.filter((tool) => 'funnelId' in (tool.inputSchema.properties ?? {}));
      expect(funnelTools).toHaveLength(tools.length - 1);
      // An unknown funnel: the header check comes first, so nothing is read or written.
      const args = { funnelId: '00000000-0000-4000-8000-000000000000' };
      for (const tool of funnelTools) {
        forged = undefined;
        sent.length = 0;
        await client.callTool({ name: tool.name, arguments: args });
        expect([tool.name, sent]).toEqual([tool.name, [args.funnelId]]);
        forged = acme.funnelId;
        await expect(client.callTool({ name: tool.name, arguments: args })).rejects.toThrow(/Funnel-Id/i);
      }
    } finally {
      await client.close();
    }
  });

  describe('answers to arguments outside the schema', () => {
    let client: Client;
    let tools: Tool[];

    beforeAll(async () => {
      client = await connect();
      ({ tools } = await client.listTools());
    });
    afterAll(async () => {
      await client?.close();
    });

    const errorText = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      expect([name, result.isError]).toEqual([name, true]);
      return (result.content as { text: string }[])[0].text;
    };

    /** Valid values for every required argument of `tool`, so only the argument under test is wrong. */
    const requiredArgs = (tool: Tool): Record<string, unknown> => {
      const properties = tool.inputSchema.properties as Record<string, Schema>;
      const valid: Record<string, unknown> = {
        funnelId: acme.funnelId,
        contactId,
        ...PERIOD,
        insightId: 'question_1',
        steps: ['page:start', 'conversion'],
        fieldName: 'city',
        value: 'Berlin',
        contacts: [{ email: 'never-written@example.com' }],
      };
      return Object.fromEntries(
        (tool.inputSchema.required ?? []).map((name) => [
          name,
          name in valid ? valid[name] : (properties[name].enum as unknown[])[0],
        ]),
      );
    };

    it('names the valid values when an enumerated argument has another', async () => {
      const enumerated = tools.flatMap((tool) =>
        Object.entries(tool.inputSchema.properties as Record<string, Schema>)
          .filter(([, schema]) => Array.isArray(schema.enum))
          .map(([name, schema]) => [tool, name, schema.enum as unknown[]] as const),
      );
      expect(enumerated.map(([tool, name]) => `${tool.name}.${name}`)).toEqual(
        expect.arrayContaining([
          'list_contacts.sortOrder',
          'search_contacts.sortOrder',
          'get_kpi_metrics.breakdown',
        ]),
      );
      for (const [tool, name, values] of enumerated) {
        const text = await errorText(tool.name, { ...requiredArgs(tool), [name]: 'none_of_these' });
        expect([tool.name, name, text]).toEqual([tool.name, name, expect.stringContaining(name)]);
        for (const value of values)
          expect([tool.name, name, text]).toEqual([
            tool.name,
            name,
            expect.stringContaining(JSON.stringify(value)),
          ]);
      }
    });

    it('names the valid operators of a search filter', async () => {
      const text = await errorText('search_contacts', {
        funnelId: acme.funnelId,
        filterGroups: [{ filters: [{ field: 'email', operator: 'like', value: 'a' }] }],
      });
      expect(text).toContain('filterGroups.0.filters.0.operator');
      for (const operator of ['"eq"', '"contains"', '"not_exists"']) expect(text).toContain(operator);
    });

    it('names the types a contact value may have', async () => {
      for (const value of [null, { a: 1 }, ['x']])
        expect(
          await errorText('update_contact_value', {
            funnelId: acme.funnelId,
            contactId,
            fieldName: 'plan',
            value,
          }),
        ).toContain('value: expected a string, a number or a boolean');
      expect(
        await errorText('update_contact', { funnelId: acme.funnelId, contactId, properties: { plan: [1] } }),
      ).toContain('properties.plan: expected a string, a number or a boolean');
    });

    it('refuses an argument the tool does not take, naming it, as REST refuses an unknown property', async () => {
      expect(await errorText('list_contacts', { funnelId: acme.funnelId, sort_order: 1 })).toMatch(
        /sort_order/,
      );
      expect(
        await errorText('update_contact', {
          funnelId: acme.funnelId,
          contactId,
          address: { town: 'Berlin' },
        }),
      ).toMatch(/town/);
      const contact = await httpClient(t.baseUrl, acme.key).get(
        `/v1/funnels/${acme.funnelId}/contacts/${contactId}`,
      );
      expect(contact.body.data.address ?? {}).not.toHaveProperty('town');
    });
  });
});
