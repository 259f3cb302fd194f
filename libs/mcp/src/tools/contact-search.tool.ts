import { z } from 'zod';
import {
  ContactsSearchService,
  MAX_FILTER_GROUPS,
  MAX_FILTERS_PER_GROUP,
  SEARCH_OPERATORS,
} from '@app/contacts';
import { cursor, sorting } from './contact-arguments';
import { CONTACT_SEARCH_PAGE } from './output-schemas';
import { READS } from './tool-annotations';
import type { ToolContext } from './tool-context';
import { toolResult } from './tool-result';
import { funnelIdInput as funnelId } from './funnel-id.input';

const searchFilter = z.strictObject({
  field: z
    .string()
    .describe(
      'A Contact field (email, phone, status, firstName, address.city, ...), createdAt, updatedAt, ' +
        'meta.ps_* (e.g. meta.ps_source), utmParams.utm_* or properties.<name>',
    ),
  operator: z
    .enum(SEARCH_OPERATORS)
    .describe('contains is case-insensitive; exists/not_exists take no value'),
  value: z
    .union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number(), z.boolean()]))])
    .optional()
    .describe('Of the field’s type (date-times ISO 8601 with zone); an array for in / not_in'),
});

/** search_contacts: the REST search over the same service, rules and answer. */
export function registerContactSearchTool(
  { server, companyId }: ToolContext,
  search: ContactsSearchService,
): void {
  server.registerTool(
    'search_contacts',
    {
      title: 'Search contacts',
      description:
        `Finds a funnel's contacts matching any of up to ${MAX_FILTER_GROUPS} filterGroups (OR), each a list of ` +
        `up to ${MAX_FILTERS_PER_GROUP} filters that must all hold (AND). Operators: ${SEARCH_OPERATORS.join(', ')}. ` +
        'Example: leads of the last week on plan pro or with an @acme.com email: ' +
        '[{filters:[{field:"createdAt",operator:"gte",value:"2026-01-24T00:00:00Z"},{field:"properties.plan",operator:"eq",value:"pro"}]},' +
        '{filters:[{field:"email",operator:"contains",value:"@acme.com"}]}]. ' +
        'Returns {data: Contact[], meta: {limit, total, hasNext, nextCursor?}}; pass meta.nextCursor as cursor ' +
        '(same filters and sort) for the next page.',
      inputSchema: {
        funnelId,
        filterGroups: z
          .array(z.strictObject({ filters: z.array(searchFilter).min(1).max(MAX_FILTERS_PER_GROUP) }))
          .max(MAX_FILTER_GROUPS)
          .default([])
          .describe('Groups OR-ed; filters in a group AND-ed; none: every contact'),
        ...sorting,
        cursor: cursor('meta.nextCursor of the previous page'),
      },
      outputSchema: CONTACT_SEARCH_PAGE,
      annotations: READS,
    },
    ({ funnelId, ...input }) => toolResult(() => search.search(companyId, funnelId, input)),
  );
}
