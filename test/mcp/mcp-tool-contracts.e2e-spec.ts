import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { DataSource } from 'typeorm';
import { insertContactMessage } from '@app/contacts';
import type { TestApp } from '../support/app';
import { createTenant, TenantFixture } from '../support/factories';
import { httpClient } from '../support/http-client';
import { connectMcpClient, startMcpApp } from '../support/mcp-stack';
import type { TestTokenIssuer } from '../support/token-issuer';

jest.setTimeout(60_000);

const PERIOD = { from: '2026-03-01T00:00:00Z', to: '2026-03-31T23:59:59Z' };

const READS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** What a client learns from tools/list and relies on: schemas, hints, capabilities, errors. */
describe('MCP tool contracts', () => {
  let issuer: TestTokenIssuer;
  let t: TestApp;
  let acme: TenantFixture;
  let client: Client;
  let tools: Tool[];
  let contactId: string;

  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  const rest = (path: string) => httpClient(t.baseUrl, acme.key).get(`/v1${path}`);
  const structured = (result: CallToolResult) => {
    expect(result.isError).toBeFalsy();
    return result.structuredContent as Record<string, unknown>;
  };
  const errorText = (result: CallToolResult) => {
    expect(result.isError).toBe(true);
    return (result.content[0] as { text: string }).text;
  };

  beforeAll(async () => {
    ({ issuer, t } = await startMcpApp());
    acme = await createTenant(t.app);
    // The client checks every structured result against its tool's outputSchema from here on.
    ({ client, tools } = await connectMcpClient(t, issuer, acme.companyId, 'tool-contracts-e2e'));

    const api = httpClient(t.baseUrl, acme.key);
    const created = await api.post(`/v1/funnels/${acme.funnelId}/contacts`, { email: 'ada@example.com' });
    expect(created.status).toBe(201);
    contactId = created.body.data.id;
    // A sent, delivered and clicked email: the contract covers a message's observed state too.
    const sent = new Date('2026-03-10T09:05:00Z');
    await t.app.get(DataSource).transaction((manager) =>
      insertContactMessage(manager, {
        contactId,
        funnelId: acme.funnelId,
        name: 'Welcome',
        type: 'email',
        subject: 'Welcome',
        content: 'Hello',
        status: 'delivered',
        sentAt: sent,
        deliveredAt: sent,
      }),
    );
    const events = [
      {
        type: 'session_start',
        sessionId: 's1',
        occurredAt: '2026-03-10T09:00:00Z',
        visitorId: 'v1',
        device: 'mobile',
      },
      { type: 'page_view', sessionId: 's1', occurredAt: '2026-03-10T09:01:00Z', pageSlug: 'start' },
      {
        type: 'answer',
        sessionId: 's1',
        occurredAt: '2026-03-10T09:02:00Z',
        questionId: 'question_1',
        questionTitle: 'Goal?',
        answers: ['Grow'],
      },
    ];
    expect((await api.post(`/v1/funnels/${acme.funnelId}/events`, { events })).status).toBe(202);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
    await issuer?.close();
  });

  it('does not advertise tools.listChanged nor resources.listChanged, which a stateless server can never send', () => {
    expect(client.getServerCapabilities()?.tools).toEqual({});
    expect(client.getServerCapabilities()?.resources).toEqual({});
  });

  it('gives every tool all four hints, chosen for what it does', () => {
    const writesContacts = {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    };
    expect(Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]))).toEqual({
      list_workspaces: READS,
      get_funnel: READS,
      list_contacts: READS,
      get_contact: READS,
      // Adds a contact per call; its automations may call webhooks.
      create_contact: writesContacts,
      // Overwrites a value; the same value again changes nothing.
      update_contact_value: { ...writesContacts, destructiveHint: true, idempotentHint: true },
      // Overwrites the fields given; the same call again changes nothing more.
      update_contact: { ...writesContacts, destructiveHint: true, idempotentHint: true },
      // Overwrites matched contacts' fields, and without upsertBy adds contacts on every call.
      upsert_contacts: { ...writesContacts, destructiveHint: true },
      // Erases for good; a second call changes nothing more. contact.deleted hooks call out.
      delete_contact: { ...writesContacts, destructiveHint: true, idempotentHint: true },
      search_contacts: READS,
      get_chart_metrics: READS,
      get_kpi_metrics: READS,
      get_insight_metrics: READS,
      show_funnel_dashboard: READS,
      get_step_funnel: READS,
    });
  });

  it("get_contact shows a message's observed state as REST does", async () => {
    const read = structured(await call('get_contact', { funnelId: acme.funnelId, contactId }));
    expect(read).toEqual((await rest(`/funnels/${acme.funnelId}/contacts/${contactId}`)).body.data);
    expect(read.messages).toEqual([
      expect.objectContaining({
        status: 'delivered',
        sentAt: '2026-03-10T09:05:00.000Z',
        deliveredAt: '2026-03-10T09:05:00.000Z',
        clicks: 0,
      }),
    ]);
  });

  // Each tool's real result passes its listed outputSchema, and the same result with one member
  // broken does not: the schemas describe the results, they do not accept anything.
  it.each<[string, Record<string, unknown>, (r: Record<string, unknown>) => unknown]>([
    ['list_workspaces', {}, (r) => ({ data: [{ ...(r.data as object[])[0], campaigns: 'none' }] })],
    ['get_funnel', {}, ({ pages: _pages, ...rest }) => rest],
    ['list_contacts', {}, (r) => ({ ...r, meta: { ...(r.meta as object), total: '1' } })],
    ['get_contact', { contactId: 'CONTACT' }, (r) => ({ ...r, status: 3 })],
    [
      'get_contact',
      { contactId: 'CONTACT' },
      (r) => ({ ...r, messages: (r.messages as object[]).map((m) => ({ ...m, clicks: 'none' })) }),
    ],
    ['search_contacts', {}, (r) => ({ ...r, meta: { ...(r.meta as object), hasNext: 'no' } })],
    [
      'create_contact',
      { email: 'cy@example.com', skipAutomationTrigger: true },
      ({ messages: _m, ...rest }) => rest,
    ],
    [
      'update_contact_value',
      { contactId: 'CONTACT', fieldName: 'city', value: 'Berlin' },
      (r) => ({ ...r, value: 1 }),
    ],
    ['update_contact', { contactId: 'CONTACT', lastName: 'Contract' }, (r) => ({ ...r, lastName: 5 })],
    [
      'upsert_contacts',
      { contacts: [{ email: 'batch-contract@example.com' }, { firstName: 'No channel' }], upsertBy: 'email' },
      (r) => ({ data: (r.data as object[]).map((item) => ({ ...item, index: 'first' })) }),
    ],
    [
      'get_chart_metrics',
      { subtype: 'chart_visitor_devices', ...PERIOD },
      () => ({ data: [{ key: 'mobile' }] }),
    ],
    ['get_kpi_metrics', { subtype: 'kpi_total_sessions', ...PERIOD }, ({ value: _v, ...rest }) => rest],
    [
      'get_insight_metrics',
      { insightId: 'question_1', ...PERIOD },
      (r) => ({ ...r, answers: { Grow: 'one' } }),
    ],
    [
      'show_funnel_dashboard',
      PERIOD,
      (r) => ({ ...r, kpis: { ...(r.kpis as object), kpi_total_sessions: { type: 'kpiTotalSessions' } } }),
    ],
    [
      'get_step_funnel',
      { steps: ['page:start', 'conversion'], ...PERIOD },
      () => ({ data: [{ step: 'page:start', value: '1' }] }),
    ],
  ])(
    '%s answers structured content that matches its outputSchema, and compact text',
    async (name, args, breakIt) => {
      // Every tool but list_workspaces takes the funnel; an argument a tool does not take is refused.
      const withFunnel = name === 'list_workspaces' ? args : { funnelId: acme.funnelId, ...args };
      const withIds = Object.fromEntries(
        Object.entries(withFunnel).map(([k, v]) => [k, v === 'CONTACT' ? contactId : v]),
      );
      const result = await call(name, withIds);
      const content = structured(result);
      expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(content) }]);
      const tool = tools.find((candidate) => candidate.name === name) as Tool;
      const validate = new AjvJsonSchemaValidator().getValidator(tool.outputSchema as never);
      expect(validate(content)).toMatchObject({ valid: true });
      expect(validate(breakIt(content))).toMatchObject({ valid: false });
    },
  );

  it('delete_contact answers structured content that matches its outputSchema', async () => {
    const created = structured(
      await call('create_contact', { funnelId: acme.funnelId, email: 'erase@example.com' }),
    ) as { id: string };
    const content = structured(
      await call('delete_contact', { funnelId: acme.funnelId, contactId: created.id }),
    );
    expect(content).toEqual({ id: created.id, deleted: true });
    const tool = tools.find((candidate) => candidate.name === 'delete_contact') as Tool;
    const validate = new AjvJsonSchemaValidator().getValidator(tool.outputSchema as never);
    expect(validate(content)).toMatchObject({ valid: true });
    expect(validate({ id: created.id })).toMatchObject({ valid: false });
  });

  it('get_funnel answers like GET /v1/funnels/{funnelId}', async () => {
    const viaTool = structured(await call('get_funnel', { funnelId: acme.funnelId }));
    expect(viaTool).toEqual((await rest(`/funnels/${acme.funnelId}`)).body.data);
    expect(viaTool).toMatchObject({
      contactStatuses: ['lead', 'converted'],
      pages: [{ slug: 'start' }, { slug: 'details' }, { slug: 'done' }],
      questions: [{ questionId: 'question_1', title: 'Goal?' }],
    });
  });

  it.each([
    [42, '42'],
    [0.5, '0.5'],
    [true, 'true'],
    [false, 'false'],
    ['plain', 'plain'],
  ])('update_contact_value stores the value %j as %j', async (value, stored) => {
    const result = structured(
      await call('update_contact_value', { funnelId: acme.funnelId, contactId, fieldName: 'score', value }),
    );
    expect(result).toMatchObject({ fieldName: 'score', value: stored });
    const contact = (await rest(`/funnels/${acme.funnelId}/contacts/${contactId}`)).body.data;
    expect(contact.properties).toEqual({ score: stored });
  });

  it('update_contact_value stores a number in a standard field as its digits', async () => {
    await call('update_contact_value', {
      funnelId: acme.funnelId,
      contactId,
      fieldName: 'zip',
      value: 10115,
    });
    const contact = (await rest(`/funnels/${acme.funnelId}/contacts/${contactId}`)).body.data;
    expect(contact.address).toMatchObject({ postalCode: '10115' });
  });

  it('update_contact_value refuses a value that is no string, number or boolean', async () => {
    for (const value of [null, { a: 1 }, ['x']])
      expect(
        errorText(
          await call('update_contact_value', {
            funnelId: acme.funnelId,
            contactId,
            fieldName: 'score',
            value,
          }),
        ),
      ).toMatch(/value/);
  });

  it('states a single problem once', async () => {
    expect(
      errorText(await call('create_contact', { funnelId: acme.funnelId, firstName: 'No channel' })),
    ).toBe('email or phone is required');
  });

  it('states each of several problems once: the first, then the others as a list', async () => {
    const query = { from: 'yesterday', to: '2026-13-01', offset: '2h' };
    const viaRest = await rest(
      `/funnels/${acme.funnelId}/metrics/kpis/kpi_total_sessions?from=yesterday&to=2026-13-01&offset=2h`,
    );
    expect(viaRest.status).toBe(400);
    expect(viaRest.body.details).toHaveLength(3);
    const text = errorText(
      await call('get_kpi_metrics', { funnelId: acme.funnelId, subtype: 'kpi_total_sessions', ...query }),
    );
    expect(text).toBe(
      [viaRest.body.error, ...viaRest.body.details.slice(1).map((d: string) => `- ${d}`)].join('\n'),
    );
    expect(text.split('\n')).toHaveLength(3);
  });

  it('metric tools take a time zone by name, as REST does, and refuse it together with offset', async () => {
    const day = { from: '2026-03-10', to: '2026-03-10' };
    const viaRest = await rest(
      `/funnels/${acme.funnelId}/metrics/kpis/kpi_total_sessions?from=2026-03-10&to=2026-03-10&timezone=America/New_York`,
    );
    const viaTool = structured(
      await call('get_kpi_metrics', {
        funnelId: acme.funnelId,
        subtype: 'kpi_total_sessions',
        timezone: 'America/New_York',
        ...day,
      }),
    );
    expect(viaTool).toEqual(viaRest.body.data);
    expect(viaTool).toEqual({ type: 'kpiTotalSessions', value: 1 });
    expect(
      errorText(
        await call('get_chart_metrics', {
          funnelId: acme.funnelId,
          subtype: 'chart_activity_by_daytime',
          timezone: 'Europe/Berlin',
          offset: '-60',
          ...day,
        }),
      ),
    ).toBe('offset and timezone are alternatives: give one of them');
  });
});
