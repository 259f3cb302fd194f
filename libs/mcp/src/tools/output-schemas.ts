import { z } from 'zod';
import { ADDRESS_FIELDS, CONTACT_TEXT_FIELDS } from '@app/contacts';
import { FUNNEL_STATUSES } from '@app/workspaces';

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
    }),
  ),
};

export const KPI = {
  type: text('camelCase of the subtype, e.g. kpiConversionRate'),
  value: z.number(),
  count: z.number().optional().describe('For rates and means: the denominator'),
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
  pages: z.array(z.object({ slug: z.string(), title: z.string() })).describe('In funnel order'),
  questions: z
    .array(z.object({ questionId: z.string(), title: z.string() }))
    .describe('Question ids (insightId of get_insight_metrics) with their latest titles'),
};
