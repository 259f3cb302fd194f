import { z } from 'zod';
import { ADDRESS_FIELDS, CONTACT_TEXT_FIELDS } from '@app/contacts';
import { PERIOD_PRESET_NAMES } from '@app/metrics';
import { FUNNEL_STATUSES } from '@app/workspaces';
import { DASHBOARD_CHARTS, DASHBOARD_KPIS } from '../apps/funnel-dashboard.figures';

// The shapes the tools answer, as their outputSchema: the same resources as the REST API's (the
// tests compare each tool with its route), so a client can validate and a model can rely on them.
// A list is wrapped in `data`, as the REST body is: structured content is always an object.

const text = (description: string) => z.string().describe(description);

const campaign = z.object({
  id: text('The funnel id: funnelId of the other tools'),
  name: z.string(),
  status: z.enum(FUNNEL_STATUSES).describe('online (published) or offline'),
});

export const WORKSPACE_LIST = {
  data: z.array(z.object({ id: z.string(), name: z.string(), campaigns: z.array(campaign) })),
};

const optionalStrings = <K extends string>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((key) => [key, z.string().optional()])) as Record<
    K,
    z.ZodOptional<z.ZodString>
  >;

const address = z.object(optionalStrings(ADDRESS_FIELDS));

const contactShape = {
  id: z.string(),
  status: text("The contact's status, one of the funnel's contactStatuses"),
  ...optionalStrings(CONTACT_TEXT_FIELDS),
  address: address.optional(),
  meta: z
    .record(z.string(), z.union([z.string(), z.boolean()]))
    .optional()
    .describe('Service-managed members: ps_source, ps_converted_at, ps_user_edited_at, ...'),
  utmParams: z.record(z.string(), z.string()).optional(),
  properties: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
    .optional()
    .describe('Custom properties'),
  messages: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      type: z.string(),
      content: z.string(),
      subject: z.string().optional(),
      status: text('What the service observed: recorded, sent, delivered, opened or failed'),
      sentAt: z.string().optional(),
      deliveredAt: z.string().optional(),
      openedAt: z.string().optional().describe('The first open'),
      clickedAt: z.string().optional().describe('The first click on a tracked link'),
      clicks: z.number().int(),
      failure: z.string().optional(),
    }),
  ),
  createdAt: text('When the contact was stored, ISO 8601'),
  updatedAt: text('When the contact last changed through any door, ISO 8601'),
};

export const CONTACT = contactShape;

export const ERASED_CONTACT = {
  id: text('The erased contact id'),
  deleted: z.literal(true),
};

export const CONTACT_PAGE = {
  data: z.array(z.object(contactShape)),
  meta: z.object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
    hasNext: z.boolean(),
    nextCursor: text('Present when hasNext: pass it as cursor for the next page').optional(),
  }),
};

export const BATCH_RESULT = {
  data: z
    .array(
      z.object({
        index: z.number().int().describe("The item's position in the call"),
        status: z.number().int().describe('201 created, 200 updated (or unchanged), 400 or 409 refused'),
        data: z.object(contactShape).optional().describe('The contact, for a written item'),
        error: text('Why the item was refused').optional(),
        details: z.array(z.string()).optional().describe('Every problem, when there are several'),
      }),
    )
    .describe('One result per item, in the order given'),
};

export const CONTACT_SEARCH_PAGE = {
  data: z.array(z.object(contactShape)),
  meta: z.object({
    limit: z.number().int(),
    total: z.number().int(),
    hasNext: z.boolean(),
    nextCursor: text('Present when hasNext: pass it as cursor for the next page').optional(),
  }),
};

export const CONTACT_VALUE = {
  id: text('The id of the recorded field value'),
  fieldName: text('The field written (zip is recorded as postalCode)'),
  value: text('The value stored, as a string'),
  updatedAt: text('When, ISO 8601'),
};

export const CHART = {
  data: z.array(
    z.object({
      key: z.string(),
      value: z.number(),
      name: z.string().optional(),
      relativeValue: z.number().optional(),
      previousValue: z.number().optional().describe('With compare: the value in the previous period'),
      previousRelativeValue: z
        .number()
        .optional()
        .describe('With compare: the relativeValue in the previous period'),
    }),
  ),
};

export const KPI = {
  type: text('camelCase of the subtype, e.g. kpiConversionRate'),
  value: z.number(),
  count: z.number().optional().describe('For rates and means: the denominator'),
  previousValue: z.number().optional().describe('With compare: the value over the previous period'),
  breakdown: z
    .array(z.object({ key: z.string(), value: z.number(), count: z.number() }))
    .optional()
    .describe('With breakdown: the KPI per value of the attribute'),
};

export const STEP_FUNNEL = {
  data: z.array(
    z.object({
      step: z.string(),
      value: z.number().describe('Sessions that reached the step'),
      relativeValue: z.number().describe('value ÷ the previous step’s value'),
      medianSecondsFromPrevious: z.number().optional(),
    }),
  ),
  meta: z.object({
    exact: z
      .boolean()
      .describe('true when every session of the period was read; false for an estimate from a sample'),
    sampleRate: z.number().describe('sampledSessions ÷ sessions: 1 when exact'),
    sessions: z.number().describe('Sessions that started in the period and match the filters'),
    sampledSessions: z
      .number()
      .describe('Sessions read; when sampled, each value is the sample’s count × sessions ÷ sampledSessions'),
  }),
};

export const INSIGHT = {
  title: text('Latest title of the question'),
  answers: z.record(z.string(), z.number()).describe('Sessions per answer'),
  groupedAnswers: z.record(z.string(), z.number()).describe('Sessions per combination of answers'),
};

export const FUNNEL = {
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  status: z.enum(FUNNEL_STATUSES),
  contactStatuses: z.array(z.string()).describe('Statuses a contact may have; the first is the default'),
  collection: z
    .object({ enabled: z.boolean(), allowedOrigins: z.array(z.string()) })
    .describe('Browser collection: whether funnel pages may send visits and leads, and from which origins'),
  pages: z.array(z.object({ slug: z.string(), title: z.string() })).describe('In funnel order'),
  questions: z
    .array(z.object({ questionId: z.string(), title: z.string() }))
    .describe('Question ids (insightId of get_insight_metrics) with their latest titles'),
};

const kpi = z.object(KPI);
const chart = CHART.data;

export const FUNNEL_DASHBOARD = {
  funnel: z.object({ id: z.string(), name: z.string() }),
  period: z
    .object({
      preset: z.enum(PERIOD_PRESET_NAMES).optional().describe('The named period, when one was asked for'),
      from: text('Start of the period as the metric tools take it (a preset gives a local date)'),
      to: text('End of the period as the metric tools take it (a date alone: the end of that day)'),
      timezone: z.string().optional(),
      offset: z.string().optional(),
    })
    .describe(
      'The period read: pass from, to and timezone or offset to the metric tools for the same figures',
    ),
  kpis: z
    .object(
      Object.fromEntries(DASHBOARD_KPIS.map((subtype) => [subtype, kpi])) as Record<
        (typeof DASHBOARD_KPIS)[number],
        typeof kpi
      >,
    )
    .describe('Each KPI as get_kpi_metrics answers it, by subtype'),
  charts: z
    .object(
      Object.fromEntries(DASHBOARD_CHARTS.map((subtype) => [subtype, chart])) as Record<
        (typeof DASHBOARD_CHARTS)[number],
        typeof chart
      >,
    )
    .describe("Each chart's data points as get_chart_metrics answers them, by subtype"),
};
