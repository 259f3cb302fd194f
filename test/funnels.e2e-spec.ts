import { FunnelDescriptionsService } from '@app/metrics';
import { startTestApp, TestApp } from './support/app';
import { createTenant, TenantFixture } from './support/factories';
import { httpClient } from './support/http-client';

const answer = (sessionId: string, questionId: string, questionTitle: string, minute: number) => ({
  type: 'answer',
  sessionId,
  occurredAt: `2026-05-04T10:${String(minute).padStart(2, '0')}:00Z`,
  questionId,
  questionTitle,
  answers: ['Yes'],
});

describe('GET /v1/funnels/{funnelId}', () => {
  let t: TestApp;
  let acme: TenantFixture;
  let globex: TenantFixture;

  beforeAll(async () => {
    t = await startTestApp();
    acme = await createTenant(t.app, { contactStatuses: ['new', 'qualified', 'won'] });
    globex = await createTenant(t.app);
    // question_1 is retitled later; question_10 sorts after question_2.
    const events = [
      answer('s1', 'question_10', 'Budget?', 1),
      answer('s1', 'question_1', 'Goal?', 2),
      answer('s2', 'question_2', 'Team size?', 3),
      answer('s2', 'question_1', 'Your goal?', 4),
    ];
    const res = await httpClient(t.baseUrl, acme.key).post(`/v1/funnels/${acme.funnelId}/events`, { events });
    expect(res.status).toBe(202);
  });
  afterAll(() => t.close());

  const get = (funnelId: string, key = acme.key) => httpClient(t.baseUrl, key).get(`/v1/funnels/${funnelId}`);

  it('answers the statuses, the pages in order and the questions with their latest titles', async () => {
    const res = await get(acme.funnelId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        id: acme.funnelId,
        workspaceId: acme.workspaceId,
        name: 'Main funnel',
        status: 'online',
        contactStatuses: ['new', 'qualified', 'won'],
        collection: { enabled: false, allowedOrigins: [] },
        pages: [
          { slug: 'start', title: 'Start' },
          { slug: 'details', title: 'Details' },
          { slug: 'done', title: 'Done' },
        ],
        questions: [
          { questionId: 'question_1', title: 'Your goal?' },
          { questionId: 'question_2', title: 'Team size?' },
          { questionId: 'question_10', title: 'Budget?' },
        ],
      },
    });
  });

  it('answers no questions for a funnel no answer event has reached', async () => {
    const res = await get(globex.funnelId, globex.key);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ contactStatuses: ['lead', 'converted'], questions: [] });
  });

  it('is the read the operators get too, for any company', async () => {
    const descriptions = t.app.get(FunnelDescriptionsService);
    expect(await descriptions.describe(acme.funnelId)).toEqual((await get(acme.funnelId)).body.data);
    expect(await descriptions.describe(globex.funnelId)).toEqual(
      (await get(globex.funnelId, globex.key)).body.data,
    );
    await expect(descriptions.describe('00000000-0000-4000-8000-000000000000')).rejects.toThrow(
      'Funnel not found',
    );
  });

  it("answers 404 for another company's funnel, as for a missing one", async () => {
    for (const funnelId of [globex.funnelId, '00000000-0000-4000-8000-000000000000'])
      expect(await get(funnelId)).toMatchObject({
        status: 404,
        body: { error: 'Funnel not found', status: 404 },
      });
  });

  it('answers 400 when funnelId is not a UUID', async () => {
    expect(await get('not-a-uuid')).toMatchObject({
      status: 400,
      body: { error: 'funnelId must be a UUID', status: 400 },
    });
  });

  it('requires crm:read', async () => {
    const metricsOnly = await acme.keyFor('metrics:read');
    expect(await get(acme.funnelId, metricsOnly)).toMatchObject({
      status: 403,
      body: { error: 'API key lacks the required permission: crm:read', status: 403 },
    });
    expect((await get(acme.funnelId, await acme.keyFor('crm:read'))).status).toBe(200);
    expect((await httpClient(t.baseUrl).get(`/v1/funnels/${acme.funnelId}`)).status).toBe(401);
  });
});
