import { DataSource } from 'typeorm';
import { SegmentFolder } from '@app/metrics';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';
import { rawRequest } from './support/raw-request';
import { tableFingerprint } from './support/table-fingerprint';
import { startTokenIssuer, TestTokenIssuer } from './support/token-issuer';

const AUDIENCE = 'https://api.funnel.example';
const NAMESPACE = 'https://funnel.example';

const UNSTORABLE = 'must not contain NUL characters or unpaired surrogates';
const nested = (levels: number, leaf = '1') => `${'['.repeat(levels)}${leaf}${']'.repeat(levels)}`;

/** Each input that once answered 500 or stored something else than it acknowledged, refused cleanly. */
describe('Attacks that once got through', () => {
  let issuer: TestTokenIssuer;
  let t: TestApp;
  let acme: TenantFixture;
  let token: string;
  let api: ReturnType<typeof httpClient>;
  let contacts: string;
  let values: string;

  beforeAll(async () => {
    issuer = await startTokenIssuer({ audience: AUDIENCE });
    t = await startTestApp({
      IDP_URL: issuer.url,
      OAUTH_CLIENT_ID: 'shared-client-id',
      OAUTH_AUDIENCE: AUDIENCE,
      OAUTH_CLAIM_NAMESPACE: NAMESPACE,
    });
    // The segment folds move their watermarks every minute whatever the requests: not measured here.
    await t.app.get(SegmentFolder).stop();
    acme = await createTenant(t.app);
    token = await issuer.sign({
      [`${NAMESPACE}/user_metadata`]: { companyId: acme.companyId, subscriptionId: 's' },
    });
    api = httpClient(t.baseUrl, acme.key);
    contacts = `/v1/funnels/${acme.funnelId}/contacts`;
    const created = await api.post(contacts, { email: 'ada@example.com' });
    expect(created.status).toBe(201);
    values = `${contacts}/${created.body.data.id}/values`;
  });
  afterAll(async () => {
    await t.close();
    await issuer.close();
  });

  const fingerprint = () => tableFingerprint(t.app.get(DataSource));

  it.each([
    [
      'a NUL in a contact text',
      () => api.post(contacts, { email: 'n@example.com', firstName: 'a\u0000b' }),
      'firstName',
    ],
    [
      'a NUL in an address part',
      () => api.post(contacts, { email: 'n@example.com', address: { city: '\u0000' } }),
      'address.city',
    ],
    [
      'a lone high surrogate',
      () => api.post(contacts, { email: 'n@example.com', firstName: 'a\ud800b' }),
      'firstName',
    ],
    [
      'a lone low surrogate',
      () => api.post(contacts, { email: 'n@example.com', lastName: '\udc00' }),
      'lastName',
    ],
    [
      'a NUL in a standard value',
      () => api.put(values, { fieldName: 'city', value: 'Ber\u0000lin' }),
      'value',
    ],
    [
      'a NUL in a custom property',
      () => api.put(values, { fieldName: 'plan', value: 'gold\u0000' }),
      'value',
    ],
    ['a surrogate in a field name', () => api.put(values, { fieldName: 'p\ud800', value: 'x' }), 'fieldName'],
  ])('answers 400 with details for %s, and stores nothing', async (_case, send, member) => {
    const before = await fingerprint();
    const res = await send();
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: `${member} ${UNSTORABLE}`,
      status: 400,
      details: [`${member} ${UNSTORABLE}`],
    });
    expect(await fingerprint()).toEqual(before);
  });

  it('answers 400 for a NUL in a query value', async () => {
    const res = await api.get(`${contacts}?sortField=email%00`);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(`sortField ${UNSTORABLE}`);
  });

  it.each([
    ['a space', 'order 1', 'Idempotency-Key must be 1 to 255 visible ASCII characters'],
    ['a non-ASCII byte', 'order-\u00e9', 'Idempotency-Key must be 1 to 255 visible ASCII characters'],
    ['256 characters', 'k'.repeat(256), 'Idempotency-Key must be 1 to 255 visible ASCII characters'],
  ])('answers 400 for an Idempotency-Key with %s, and stores nothing', async (_case, key, error) => {
    const before = await fingerprint();
    const res = await rawRequest(
      t.baseUrl,
      'POST',
      contacts,
      { 'x-service-api-key': acme.key, 'content-type': 'application/json', 'idempotency-key': key },
      JSON.stringify({ email: 'k@example.com' }),
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ error, status: 400 });
    expect(await fingerprint()).toEqual(before);
  });

  it('gives back exactly the text it accepted (a paired surrogate survives the round trip)', async () => {
    const created = await api.post(contacts, { email: 'emoji@example.com', firstName: 'Ada \ud83d\ude00' });
    expect(created.status).toBe(201);
    const read = await api.get(`${contacts}/${created.body.data.id}`);
    expect(read.body.data.firstName).toBe('Ada \ud83d\ude00');
  });

  it.each([
    [
      'POST …/contacts, 3,000 levels',
      () => api.post(contacts, `{"email":"d@example.com","address":${nested(3000)}}`),
    ],
    [
      'PUT …/values, 5,000 levels',
      () => api.put(values, `{"fieldName":"plan","value":${nested(5000, '"x"')}}`),
    ],
    ['POST …/events, 33 levels', () => api.post(`/v1/funnels/${acme.funnelId}/events`, nested(33))],
  ])('answers 400 for a body nested too deeply (%s) before any reader sees it', async (_case, send) => {
    const before = await fingerprint();
    const res = await send();
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'JSON body nested deeper than 32 levels', status: 400 });
    expect(await fingerprint()).toEqual(before);
  });

  it('reads a body nested 32 levels deep (the limit itself)', async () => {
    const res = await api.post(contacts, `{"email":"ok@example.com","address":${nested(31)}}`);
    // Read and parsed: the field rules answer, not the depth check.
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('address must be an object');
  });

  it.each([
    ['POST …/contacts', () => api.post(contacts, { email: 'z@example.com', skipAutomationTrigger: null })],
    [
      'PUT …/values',
      () => api.put(values, { fieldName: 'city', value: 'Berlin', skipAutomationTrigger: null }),
    ],
    ['POST …/contacts, a text member', () => api.post(contacts, { email: 'z@example.com', firstName: null })],
  ])('answers 400 for a typed member sent as null (%s), and changes nothing', async (_case, send) => {
    const before = await fingerprint();
    const res = await send();
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^(skipAutomationTrigger|firstName) must not be null$/);
    expect(await fingerprint()).toEqual(before);
  });

  it.each(['TRACE', 'PATCH', 'DELETE'])(
    'answers 405 with Allow for %s on the contacts path',
    async (method) => {
      const res = await rawRequest(t.baseUrl, method, contacts, { 'x-service-api-key': acme.key });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD, POST');
      expect(JSON.parse(res.body)).toEqual({
        error: `Method ${method} is not allowed on ${contacts}`,
        status: 405,
      });
    },
  );

  it('answers 405 with Allow for PATCH on a chart path (a route with path parameters)', async () => {
    const res = await api.send('PATCH', `/v1/funnels/${acme.funnelId}/metrics/charts/chart_visitor_devices`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });

  it.each([
    ['create_contact', { firstName: 'a\u0000b' }],
    ['create_contact', { address: { city: 'x\ud800' } }],
    ['update_contact_value', { fieldName: 'plan', value: 'gold\u0000' }],
  ])(
    'refuses unstorable text in MCP %s arguments with the same rule, and stores nothing',
    async (tool, args) => {
      const before = await fingerprint();
      const contactId = values.split('/')[5];
      const res = await fetch(`${t.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: tool,
            // Only the arguments each tool takes: the unstorable text is the one problem.
            arguments:
              tool === 'create_contact'
                ? { funnelId: acme.funnelId, email: 'm@example.com', ...args }
                : { funnelId: acme.funnelId, contactId, ...args },
          },
        }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { result: { isError: boolean; content: { text: string }[] } };
      expect(body.result.isError).toBe(true);
      expect(body.result.content[0].text).toContain(`text ${UNSTORABLE}`);
      expect(body.result.content[0].text).not.toMatch(/Unrecognized/);
      expect(await fingerprint()).toEqual(before);
    },
  );
});
