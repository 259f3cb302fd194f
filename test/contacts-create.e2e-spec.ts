import { startAppWithRecordingTrigger, RecordingTrigger } from './support/recording-trigger';
import type { TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';

describe('POST /v1/funnels/{funnelId}/contacts', () => {
  let t: TestApp & { trigger: RecordingTrigger };
  let acme: TenantFixture;
  let api: ReturnType<typeof httpClient>;
  let path: string;

  beforeAll(async () => {
    t = await startAppWithRecordingTrigger();
    acme = await createTenant(t.app, { contactStatuses: ['new', 'qualified', 'won'] });
    api = httpClient(t.baseUrl, acme.key);
    path = `/v1/funnels/${acme.funnelId}/contacts`;
  });
  afterAll(() => t.close());

  it('creates a contact and answers 201 with the Contact resource', async () => {
    const before = Date.now();
    const res = await api.post(path, {
      email: 'ada@example.com',
      phone: '+4915112345678',
      firstName: 'Ada',
      lastName: 'Lovelace',
      website: 'https://ada.example.com',
      birthday: '1815-12-10',
      address: { postalCode: '10115', city: 'Berlin', country: 'Germany' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      data: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        status: 'new',
        email: 'ada@example.com',
        phone: '+4915112345678',
        firstName: 'Ada',
        lastName: 'Lovelace',
        website: 'https://ada.example.com',
        birthday: '1815-12-10',
        address: { postalCode: '10115', city: 'Berlin', country: 'Germany' },
        meta: { ps_source: 'external-api', ps_converted_at: expect.any(String) },
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updatedAt: res.body.data.createdAt,
        messages: [],
      },
    });
    const convertedAt = Date.parse(res.body.data.meta.ps_converted_at);
    expect(convertedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(convertedAt).toBeLessThanOrEqual(Date.now() + 1000);

    expect(res.headers.get('location')).toBe(`${path}/${res.body.data.id}`);
    const read = await api.get(res.headers.get('location')!);
    expect(read.body).toEqual(res.body);
  });

  it('leaves unknown members out instead of sending null', async () => {
    const res = await api.post(path, { phone: '+441632960961' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.data).sort()).toEqual([
      'createdAt',
      'id',
      'messages',
      'meta',
      'phone',
      'status',
      'updatedAt',
    ]);
  });

  it('accepts a configured status and defaults to the first one', async () => {
    expect((await api.post(path, { email: 'q@example.com', status: 'qualified' })).body.data.status).toBe(
      'qualified',
    );
    expect((await api.post(path, { email: 'd@example.com' })).body.data.status).toBe('new');
  });

  it('trims values and treats empty strings as absent', async () => {
    const res = await api.post(path, { email: '  trim@example.com ', firstName: '   ', phone: '' });
    expect(res.status).toBe(201);
    expect(res.body.data.email).toBe('trim@example.com');
    expect(res.body.data).not.toHaveProperty('firstName');
    expect(res.body.data).not.toHaveProperty('phone');
  });

  describe('records contact.created for automations', () => {
    it('inside the creating transaction', async () => {
      const calls = t.trigger.calls.length;
      const res = await api.post(path, { email: 'auto@example.com' });
      expect(t.trigger.calls).toHaveLength(calls + 1);
      const call = t.trigger.calls[calls];
      expect(call.changes).toEqual([
        {
          kind: 'contact.created',
          companyId: acme.companyId,
          funnelId: acme.funnelId,
          contactId: res.body.data.id,
          occurredAt: expect.any(Date),
        },
      ]);
      expect(call).toMatchObject({ visibleInTransaction: true, visibleOutside: false });
    });

    it('not at all when skipAutomationTrigger is true', async () => {
      const calls = t.trigger.calls.length;
      const res = await api.post(path, { email: 'skip@example.com', skipAutomationTrigger: true });
      expect(res.status).toBe(201);
      expect(t.trigger.calls).toHaveLength(calls);
    });

    it('and creates nothing when recording fails', async () => {
      t.trigger.failNext = true;
      const res = await api.post(path, { email: 'rolled-back@example.com' });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'Internal server error', status: 500 });
      const list = await api.get(`${path}?limit=100`);
      expect(list.body.data.map((c: { email?: string }) => c.email)).not.toContain('rolled-back@example.com');
    });
  });

  describe('answers 400 and creates nothing', () => {
    const cases: [string, unknown, string][] = [
      ['both email and phone are missing', { firstName: 'Nobody' }, 'email or phone is required'],
      ['the body is empty', {}, 'email or phone is required'],
      ['email and phone are empty strings', { email: ' ', phone: '' }, 'email or phone is required'],
      ['the email is invalid', { email: 'not-an-email' }, 'email must be a valid email address'],
      [
        'the email is too long',
        { email: `${'a'.repeat(320)}@example.com` },
        'email must be at most 320 characters',
      ],
      [
        'the phone is not a number',
        { phone: 'call me' },
        expect.stringMatching(/^phone must be a phone number/) as never,
      ],
      ['email is not a string', { email: 42 }, 'email must be a string'],
      [
        'the status is not configured',
        { email: 'x@example.com', status: 'lead' },
        "status must be one of the funnel's statuses: new, qualified, won",
      ],
      [
        'the website is not a URL',
        { email: 'x@example.com', website: 'not a url' },
        'website must be a URL such as https://example.com',
      ],
      [
        'the birthday is not a date',
        { email: 'x@example.com', birthday: '10/12/1815' },
        'birthday must be a date in the form YYYY-MM-DD',
      ],
      [
        'the birthday does not exist',
        { email: 'x@example.com', birthday: '2023-02-29' },
        'birthday must be a date in the form YYYY-MM-DD',
      ],
      [
        'firstName is too long',
        { email: 'x@example.com', firstName: 'A'.repeat(201) },
        'firstName must be at most 200 characters',
      ],
      [
        'address is not an object',
        { email: 'x@example.com', address: 'Berlin' },
        'address must be an object',
      ],
      [
        'an address part is not a string',
        { email: 'x@example.com', address: { city: 7 } },
        'address.city must be a string',
      ],
      [
        'an address part is unknown',
        { email: 'x@example.com', address: { planet: 'Mars' } },
        'address.planet is not a recognised field',
      ],
      [
        'meta is set',
        { email: 'x@example.com', meta: { ps_source: 'funnel' } },
        'meta is managed by the service and cannot be set',
      ],
      [
        'utmParams is set',
        { email: 'x@example.com', utmParams: { utm_source: 'x' } },
        'utmParams is read-only and cannot be set',
      ],
      [
        'properties is set',
        { email: 'x@example.com', properties: { a: 1 } },
        'properties cannot be set here: write each one with PUT .../values',
      ],
      [
        'an unknown member is sent',
        { email: 'x@example.com', nickname: 'Ada' },
        'nickname is not a recognised field',
      ],
      [
        'skipAutomationTrigger is not a boolean',
        { email: 'x@example.com', skipAutomationTrigger: 'yes' },
        'skipAutomationTrigger must be a boolean',
      ],
      ['the body is a JSON array', [{ email: 'x@example.com' }], 'the request body must be a JSON object'],
    ];
    it.each(cases)('when %s', async (_, body, error) => {
      const before = (await api.get(`${path}?limit=1`)).body.meta.total;
      const res = await api.post(path, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error, status: 400, details: expect.arrayContaining([error]) });
      expect((await api.get(`${path}?limit=1`)).body.meta.total).toBe(before);
    });

    it('listing every problem in details', async () => {
      const res = await api.post(path, { email: 'bad', website: 'nope', status: 'lead' });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([
        'email must be a valid email address',
        'website must be a URL such as https://example.com',
        "status must be one of the funnel's statuses: new, qualified, won",
      ]);
    });

    it('when funnelId is not a UUID', async () => {
      const res = await api.post('/v1/funnels/not-a-uuid/contacts', { email: 'x@example.com' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'funnelId must be a UUID',
        status: 400,
        details: ['funnelId must be a UUID'],
      });
    });
  });

  it('answers 404 for an unknown funnel', async () => {
    const res = await api.post('/v1/funnels/00000000-0000-4000-8000-000000000000/contacts', {
      email: 'x@example.com',
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Funnel not found', status: 404 });
  });
});
