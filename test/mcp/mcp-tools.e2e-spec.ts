import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { TestApp } from '../support/app';
import { createTenant, TenantFixture } from '../support/factories';
import { connectMcpClient, startMcpApp } from '../support/mcp-stack';
import type { TestTokenIssuer } from '../support/token-issuer';
import { MCP_TOOL_NAMES } from '../support/mcp-tool-names';

// Booting real apps on a loaded machine can take longer than jest's default 5 s.
jest.setTimeout(60_000);

const PERIOD = { from: '2025-03-01T00:00:00Z', to: '2025-03-31T23:59:59Z' };

/** Each tool answers exactly what the REST route over the same service answers, for the token's company. */
describe('MCP tools', () => {
  let issuer: TestTokenIssuer;
  let t: TestApp;
  let acme: TenantFixture;
  let globex: TenantFixture;
  let client: Client;
  let tools: Tool[];

  const rest = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${t.baseUrl}/v1${path}`, {
      ...init,
      headers: { 'x-service-api-key': acme.key, 'content-type': 'application/json', ...init.headers },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  // The structured content, after checking that the text is the same JSON, compact.
  const json = (result: CallToolResult) => {
    expect(result.isError).toBeFalsy();
    expect(result.content).toHaveLength(1);
    const text = (result.content[0] as { text: string }).text;
    expect(result.structuredContent).toEqual(JSON.parse(text));
    expect(text).toBe(JSON.stringify(result.structuredContent));
    return result.structuredContent as unknown;
  };
  const errorText = (result: CallToolResult) => {
    expect(result.isError).toBe(true);
    return (result.content[0] as { text: string }).text;
  };

  beforeAll(async () => {
    ({ issuer, t } = await startMcpApp());
    acme = await createTenant(t.app);
    globex = await createTenant(t.app);
    // The client checks every structured result against its tool's outputSchema from here on.
    ({ client, tools } = await connectMcpClient(t, issuer, acme.companyId, 'tools-e2e'));

    for (const [email, firstName] of [
      ['ada@example.com', 'Ada'],
      ['bob@example.com', 'Bob'],
    ]) {
      expect(
        (
          await rest(`/funnels/${acme.funnelId}/contacts`, {
            method: 'POST',
            body: JSON.stringify({ email, firstName }),
          })
        ).status,
      ).toBe(201);
    }
    const at = (minute: number) => `2025-03-10T09:${String(minute).padStart(2, '0')}:00Z`;
    const events = [
      { type: 'session_start', sessionId: 's1', occurredAt: at(0), visitorId: 'v1', device: 'mobile' },
      { type: 'page_view', sessionId: 's1', occurredAt: at(1), pageSlug: 'start', timeOnPageMs: 4000 },
      {
        type: 'answer',
        sessionId: 's1',
        occurredAt: at(2),
        questionId: 'question_1',
        questionTitle: 'Goal?',
        answers: ['Grow'],
      },
      { type: 'conversion', sessionId: 's1', occurredAt: at(3) },
      { type: 'session_start', sessionId: 's2', occurredAt: at(5), visitorId: 'v2', device: 'desktop' },
    ];
    expect(
      (await rest(`/funnels/${acme.funnelId}/events`, { method: 'POST', body: JSON.stringify({ events }) }))
        .status,
    ).toBe(202);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
    await issuer?.close();
  });

  it('lists every tool, each with a description, an input schema and an output schema', async () => {
    expect(tools.map((tool) => tool.name).sort()).toEqual(MCP_TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe('object');
      expect([tool.name, tool.outputSchema?.type]).toEqual([tool.name, 'object']);
    }
    const listContacts = tools.find((tool) => tool.name === 'list_contacts')!;
    expect(listContacts.inputSchema.required).toEqual(['funnelId']);
    const deleteContact = tools.find((tool) => tool.name === 'delete_contact')!;
    expect(deleteContact.annotations).toMatchObject({ destructiveHint: true });
    expect(deleteContact.inputSchema.required).toEqual(['funnelId', 'contactId']);
  });

  it('list_workspaces answers like GET /v1/workspaces', async () => {
    expect(json(await call('list_workspaces', {}))).toEqual((await rest('/workspaces')).body);
  });

  it('list_contacts answers like GET .../contacts, with the same paging and sorting', async () => {
    const query = { page: 0, limit: 1, sortField: 'email', sortOrder: 1 };
    const viaRest = await rest(
      `/funnels/${acme.funnelId}/contacts?page=0&limit=1&sortField=email&sortOrder=1`,
    );
    const viaTool = json(await call('list_contacts', { funnelId: acme.funnelId, ...query })) as {
      data: { email: string }[];
    };
    expect(viaTool).toEqual(viaRest.body);
    expect(viaTool.data.map((c) => c.email)).toEqual(['ada@example.com']);
  });

  it('search_contacts answers like POST .../contacts/search, errors included', async () => {
    const body = {
      filterGroups: [
        { filters: [{ field: 'email', operator: 'starts_with', value: 'ADA' }] },
        { filters: [{ field: 'firstName', operator: 'contains', value: 'zz' }] },
      ],
      limit: 5,
    };
    const viaRest = await rest(`/funnels/${acme.funnelId}/contacts/search`, {
      method: 'POST',
      body: JSON.stringify(body),
    });
    const viaTool = json(await call('search_contacts', { funnelId: acme.funnelId, ...body })) as {
      data: { email: string }[];
    };
    expect(viaTool).toEqual(viaRest.body);
    expect(viaTool.data.map((c) => c.email)).toEqual(['ada@example.com']);
    const bad = await call('search_contacts', {
      funnelId: acme.funnelId,
      filterGroups: [{ filters: [{ field: 'nickname', operator: 'eq', value: 'x' }] }],
    });
    expect(bad.isError).toBe(true);
    expect(errorText(bad)).toMatch(/"nickname" is not a searchable field/);
  });

  it('list_contacts applies the REST defaults', async () => {
    const viaTool = json(await call('list_contacts', { funnelId: acme.funnelId })) as { meta: unknown };
    expect(viaTool.meta).toEqual({ page: 0, limit: 50, total: 2, hasNext: false });
  });

  it('list_contacts filters and follows cursors like GET .../contacts', async () => {
    const filtered = json(
      await call('list_contacts', { funnelId: acme.funnelId, email: 'ADA@example.com', status: 'lead' }),
    ) as { data: { email: string }[]; meta: unknown };
    const viaRest = await rest(`/funnels/${acme.funnelId}/contacts?email=ADA%40example.com&status=lead`);
    expect(filtered).toEqual(viaRest.body);
    expect(filtered.data.map((c) => c.email)).toEqual(['ada@example.com']);

    const first = json(await call('list_contacts', { funnelId: acme.funnelId, limit: 1 })) as {
      meta: { nextCursor: string };
    };
    const args = { funnelId: acme.funnelId, limit: 1, cursor: first.meta.nextCursor };
    const second = json(await call('list_contacts', args));
    const secondViaRest = await rest(
      `/funnels/${acme.funnelId}/contacts?limit=1&cursor=${first.meta.nextCursor}`,
    );
    expect(second).toEqual(secondViaRest.body);
    expect(
      errorText(await call('list_contacts', { funnelId: acme.funnelId, updatedAfter: 'today' })),
    ).toContain('updatedAfter must be an ISO 8601 date-time with a zone');
  });

  it('delete_contact erases the contact like DELETE .../contacts/{contactId}', async () => {
    const created = json(
      await call('create_contact', { funnelId: acme.funnelId, email: 'erase-me@example.com' }),
    ) as { id: string };
    const args = { funnelId: acme.funnelId, contactId: created.id };
    expect(json(await call('delete_contact', args))).toEqual({ id: created.id, deleted: true });
    expect((await rest(`/funnels/${acme.funnelId}/contacts/${created.id}`)).status).toBe(404);
    expect(errorText(await call('delete_contact', args))).toBe('Contact not found');
  });

  it('create_contact creates through the same rules, get_contact reads it back', async () => {
    const created = json(
      await call('create_contact', {
        funnelId: acme.funnelId,
        email: 'cy@example.com',
        lastName: 'Young',
        address: { city: 'Berlin' },
        skipAutomationTrigger: true,
      }),
    ) as { id: string; meta: Record<string, unknown> };
    expect(created).toMatchObject({
      email: 'cy@example.com',
      lastName: 'Young',
      address: { city: 'Berlin' },
      status: 'lead',
    });
    expect(created.meta.ps_source).toBe('external-api');
    const read = json(await call('get_contact', { funnelId: acme.funnelId, contactId: created.id }));
    expect(read).toEqual((await rest(`/funnels/${acme.funnelId}/contacts/${created.id}`)).body.data);
    expect(read).toEqual(created);
  });

  it('create_contact reports the validation problems as a tool error', async () => {
    expect(
      errorText(await call('create_contact', { funnelId: acme.funnelId, firstName: 'No channel' })),
    ).toMatch(/^email or phone is required/);
  });

  it('update_contact_value writes one field and answers the field-value record', async () => {
    const [contact] = (await rest(`/funnels/${acme.funnelId}/contacts?sortField=email&sortOrder=1`)).body
      .data as { id: string }[];
    const result = json(
      await call('update_contact_value', {
        funnelId: acme.funnelId,
        contactId: contact.id,
        fieldName: 'zip',
        value: '10115',
      }),
    );
    expect(result).toEqual({
      id: expect.any(String),
      fieldName: 'postalCode',
      value: '10115',
      updatedAt: expect.any(String),
    });
    const after = (await rest(`/funnels/${acme.funnelId}/contacts/${contact.id}`)).body.data as {
      address: unknown;
    };
    expect(after.address).toMatchObject({ postalCode: '10115' });
    expect(
      errorText(
        await call('update_contact_value', {
          funnelId: acme.funnelId,
          contactId: contact.id,
          fieldName: 'ps_source',
          value: 'x',
        }),
      ),
    ).toMatch(/reserved/);
  });

  it('update_contact changes many fields like PATCH .../contacts/{contactId}', async () => {
    const created = (
      await rest(`/funnels/${acme.funnelId}/contacts`, {
        method: 'POST',
        body: JSON.stringify({ email: 'many@example.com', firstName: 'Many' }),
      })
    ).body.data as { id: string };
    const result = json(
      await call('update_contact', {
        funnelId: acme.funnelId,
        contactId: created.id,
        lastName: 'Fields',
        firstName: null,
        address: { city: 'Berlin' },
        properties: { plan: 'pro', seats: 5 },
      }),
    );
    expect(result).toEqual((await rest(`/funnels/${acme.funnelId}/contacts/${created.id}`)).body.data);
    expect(result).toMatchObject({
      lastName: 'Fields',
      address: { city: 'Berlin' },
      properties: { plan: 'pro', seats: '5' },
    });
    expect((result as { firstName?: string }).firstName).toBeUndefined();
    // All or nothing, with the REST message.
    expect(
      errorText(
        await call('update_contact', {
          funnelId: acme.funnelId,
          contactId: created.id,
          email: null,
          lastName: 'X',
        }),
      ),
    ).toMatch(/^email cannot be cleared: a contact needs an email or a phone/);
    expect(
      ((await rest(`/funnels/${acme.funnelId}/contacts/${created.id}`)).body.data as { lastName: string })
        .lastName,
    ).toBe('Fields');
  });

  it('upsert_contacts creates and updates like POST .../contacts/batch, item by item', async () => {
    const result = json(
      await call('upsert_contacts', {
        funnelId: acme.funnelId,
        upsertBy: 'email',
        contacts: [
          { email: 'many@example.com', lastName: 'Upserted' },
          { email: 'fresh@example.com' },
          { firstName: 'None' },
        ],
      }),
    ) as {
      data: { index: number; status: number; data?: { id: string; lastName?: string }; error?: string }[];
    };
    expect(result.data.map((d) => [d.index, d.status])).toEqual([
      [0, 200],
      [1, 201],
      [2, 400],
    ]);
    expect(result.data[0].data?.lastName).toBe('Upserted');
    expect(result.data[2].error).toBe('email is required to upsert by email');
    expect((await rest(`/funnels/${acme.funnelId}/contacts/${result.data[1].data!.id}`)).body.data).toEqual(
      result.data[1].data,
    );
    expect(
      errorText(
        await call('upsert_contacts', { funnelId: globex.funnelId, contacts: [{ email: 'x@example.com' }] }),
      ),
    ).toBe('Funnel not found');
  });

  it('get_chart_metrics answers like GET .../metrics/charts/{subtype}', async () => {
    const viaRest = await rest(
      `/funnels/${acme.funnelId}/metrics/charts/chart_visitor_devices?from=${PERIOD.from}&to=${PERIOD.to}`,
    );
    expect(viaRest.status).toBe(200);
    const viaTool = json(
      await call('get_chart_metrics', {
        funnelId: acme.funnelId,
        subtype: 'chart_visitor_devices',
        ...PERIOD,
      }),
    );
    expect(viaTool).toEqual(viaRest.body);
    expect((viaTool as { data: unknown[] }).data).toContainEqual(
      expect.objectContaining({ key: 'mobile', value: 1 }),
    );
  });

  it('get_chart_metrics refuses abTest on a chart that does not support it, like REST', async () => {
    const viaRest = await rest(
      `/funnels/${acme.funnelId}/metrics/charts/chart_visitor_devices?from=${PERIOD.from}&to=${PERIOD.to}&abTest=all`,
    );
    expect(viaRest.status).toBe(400);
    const text = errorText(
      await call('get_chart_metrics', {
        funnelId: acme.funnelId,
        subtype: 'chart_visitor_devices',
        abTest: 'all',
        ...PERIOD,
      }),
    );
    expect(text.split('\n')[0]).toBe(viaRest.body.error);
  });

  it('get_kpi_metrics answers like GET .../metrics/kpis/{subtype}', async () => {
    const viaRest = await rest(
      `/funnels/${acme.funnelId}/metrics/kpis/kpi_conversion_rate?from=${PERIOD.from}&to=${PERIOD.to}&offset=-60`,
    );
    const viaTool = json(
      await call('get_kpi_metrics', {
        funnelId: acme.funnelId,
        subtype: 'kpi_conversion_rate',
        offset: '-60',
        ...PERIOD,
      }),
    );
    expect(viaTool).toEqual(viaRest.body.data);
    expect(viaTool).toEqual({ type: 'kpiConversionRate', value: 50, count: 2 });
  });

  it('get_kpi_metrics takes filters, a breakdown and a comparison like REST', async () => {
    const viaRest = await rest(
      `/funnels/${acme.funnelId}/metrics/kpis/kpi_conversion_rate?from=${PERIOD.from}&to=${PERIOD.to}&device=mobile&device=tablet&breakdown=device&compare=previous_period`,
    );
    expect(viaRest.status).toBe(200);
    const viaTool = json(
      await call('get_kpi_metrics', {
        funnelId: acme.funnelId,
        subtype: 'kpi_conversion_rate',
        device: ['mobile', 'tablet'],
        breakdown: 'device',
        compare: 'previous_period',
        ...PERIOD,
      }),
    );
    expect(viaTool).toEqual(viaRest.body.data);
    expect(viaTool).toEqual({
      type: 'kpiConversionRate',
      value: 100,
      count: 1,
      previousValue: 0,
      breakdown: [{ key: 'mobile', value: 100, count: 1 }],
    });
    expect(
      errorText(
        await call('get_kpi_metrics', {
          funnelId: acme.funnelId,
          subtype: 'kpi_new_contacts',
          utmSource: ['google'],
          ...PERIOD,
        }),
      ),
    ).toMatch(/^utmSource is not supported by kpi_new_contacts/);
  });

  it('get_step_funnel answers like GET .../metrics/funnel', async () => {
    const viaRest = await rest(
      `/funnels/${acme.funnelId}/metrics/funnel?from=${PERIOD.from}&to=${PERIOD.to}&steps=page:start,answer:question_1,conversion&within=PT10M`,
    );
    expect(viaRest.status).toBe(200);
    const viaTool = json(
      await call('get_step_funnel', {
        funnelId: acme.funnelId,
        steps: ['page:start', 'answer:question_1', 'conversion'],
        within: 'PT10M',
        ...PERIOD,
      }),
    );
    expect(viaTool).toEqual(viaRest.body);
    expect(viaTool).toEqual({
      data: [
        { step: 'page:start', value: 1, relativeValue: 1 },
        { step: 'answer:question_1', value: 1, relativeValue: 1, medianSecondsFromPrevious: 60 },
        { step: 'conversion', value: 1, relativeValue: 1, medianSecondsFromPrevious: 60 },
      ],
      meta: { exact: true, sampleRate: 1, sessions: 2, sampledSessions: 2 },
    });
    expect(
      errorText(
        await call('get_step_funnel', { funnelId: acme.funnelId, steps: ['page:start', 'visit'], ...PERIOD }),
      ),
    ).toMatch(/^steps must list 2 to 10 steps/);
  });

  it('get_insight_metrics answers like GET .../metrics/insights/{insightId}', async () => {
    const viaRest = await rest(
      `/funnels/${acme.funnelId}/metrics/insights/question_1?from=${PERIOD.from}&to=${PERIOD.to}`,
    );
    const viaTool = json(
      await call('get_insight_metrics', { funnelId: acme.funnelId, insightId: 'question_1', ...PERIOD }),
    );
    expect(viaTool).toEqual(viaRest.body.data);
    expect(viaTool).toMatchObject({ title: 'Goal?', answers: { Grow: 1 } });
    expect(
      errorText(
        await call('get_insight_metrics', { funnelId: acme.funnelId, insightId: 'question_9', ...PERIOD }),
      ),
    ).toBe('Question question_9 not found');
  });

  it.each([
    ['list_contacts', {}],
    ['get_contact', { contactId: '00000000-0000-4000-8000-000000000000' }],
    ['create_contact', { email: 'intruder@example.com' }],
    [
      'update_contact_value',
      { contactId: '00000000-0000-4000-8000-000000000000', fieldName: 'city', value: 'x' },
    ],
    ['delete_contact', { contactId: '00000000-0000-4000-8000-000000000000' }],
    ['get_chart_metrics', { subtype: 'chart_visitor_devices', ...PERIOD }],
    ['get_kpi_metrics', { subtype: 'kpi_total_sessions', ...PERIOD }],
    ['get_insight_metrics', { insightId: 'question_1', ...PERIOD }],
    ['show_funnel_dashboard', PERIOD],
    ['get_step_funnel', { steps: ['page:start', 'conversion'], ...PERIOD }],
    ['get_funnel', {}],
  ])("%s on another company's funnel is 'Funnel not found'", async (name, args) => {
    expect(errorText(await call(name, { funnelId: globex.funnelId, ...args }))).toBe('Funnel not found');
  });

  it('leaves the other company untouched', async () => {
    const res = await fetch(`${t.baseUrl}/v1/funnels/${globex.funnelId}/contacts`, {
      headers: { 'x-service-api-key': globex.key },
    });
    expect(((await res.json()) as { meta: { total: number } }).meta.total).toBe(0);
  });

  it('refuses arguments outside the schema before any service runs', async () => {
    const result = await call('list_contacts', { funnelId: acme.funnelId, limit: 101 });
    expect(errorText(result)).toMatch(/limit/);
  });
});
