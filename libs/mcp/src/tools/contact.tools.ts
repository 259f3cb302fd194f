import { z } from 'zod';
import {
  ADDRESS_FIELDS,
  ContactsSearchService,
  ContactsService,
  DEFAULT_LIMIT,
  DEFAULT_SORT_FIELD,
  DEFAULT_SORT_ORDER,
  FIELD_ALIASES,
  MAX_BATCH_CONTACTS,
  MAX_CURSOR_LENGTH,
  MAX_CUSTOM_PROPERTY_NAME_LENGTH,
  MAX_FILTER_GROUPS,
  MAX_FILTERS_PER_GROUP,
  MAX_LIMIT,
  SORT_FIELDS,
  SEARCH_OPERATORS,
  SORT_ORDERS,
  STANDARD_FIELDS,
} from '@app/contacts';
import { storableString } from '@app/core';
import {
  BATCH_RESULT,
  CONTACT,
  CONTACT_PAGE,
  CONTACT_SEARCH_PAGE,
  CONTACT_VALUE,
  ERASED_CONTACT,
} from './output-schemas';
import { READS } from './tool-annotations';
import type { ToolContext } from './tool-context';
import { toolResult } from './tool-result';
import { funnelIdInput } from './funnel-id.input';

const funnelId = funnelIdInput;
const contactId = z.string().describe('The contact id');
// Text the tools store follows the REST rule (no NUL, no unpaired surrogate); lengths are the service's.
const optionalText = (description: string) => storableString().optional().describe(description);
// `postalCode (zip is an alias)`: each standard field with the legacy names that stand for it.
const STANDARD_FIELDS_TEXT = STANDARD_FIELDS.map((field) => {
  const aliases = Object.keys(FIELD_ALIASES).filter((alias) => FIELD_ALIASES[alias] === field);
  return aliases.length ? `${field} (${aliases.join(', ')} is an alias)` : field;
}).join(', ');
const address = z
  .strictObject(Object.fromEntries(ADDRESS_FIELDS.map((field) => [field, storableString().optional()])))
  .optional()
  .describe('Postal address; every part optional');
const propertyValue = z.union([storableString(), z.number(), z.boolean()]);
const skipAutomationTrigger = z
  .boolean()
  .optional()
  .describe('true skips the automations this change would trigger (default false)');

export function registerContactTools({ server, companyId }: ToolContext, contacts: ContactsService): void {
  server.registerTool(
    'list_contacts',
    {
      title: 'List contacts',
      description:
        "Lists a funnel's contacts one page at a time (newest conversions first by default), optionally " +
        'filtered by email, phone, status, updatedAfter or createdAfter (combined with AND). ' +
        'Returns {data: Contact[], meta: {page, limit, total, hasNext, nextCursor?}}; pass meta.nextCursor ' +
        'as cursor (same sort and filters) for the next page.',
      inputSchema: {
        funnelId,
        page: z.number().int().min(0).default(0).describe('0-based page number'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_LIMIT)
          .default(DEFAULT_LIMIT)
          .describe(`Page size, 1 to ${MAX_LIMIT}`),
        sortField: z.enum(SORT_FIELDS).default(DEFAULT_SORT_FIELD).describe('Field to sort by'),
        sortOrder: z
          .literal([...SORT_ORDERS])
          .default(DEFAULT_SORT_ORDER)
          .describe('-1 descending, 1 ascending (missing values sort lowest)'),
        cursor: z
          .string()
          .max(MAX_CURSOR_LENGTH)
          .optional()
          .describe(
            'meta.nextCursor of the previous page (same sortField, sortOrder and filters); not with page',
          ),
        email: optionalText('Only contacts with exactly this email (case-insensitive)'),
        phone: optionalText('Only contacts with this phone number (only digits are compared)'),
        status: optionalText("Only contacts with this status (one of the funnel's)"),
        updatedAfter: optionalText(
          'Only contacts changed strictly after this ISO 8601 date-time (with zone)',
        ),
        createdAfter: optionalText(
          'Only contacts created strictly after this ISO 8601 date-time (with zone)',
        ),
      },
      outputSchema: CONTACT_PAGE,
      annotations: READS,
    },
    ({ funnelId, ...query }) => toolResult(() => contacts.list(companyId, funnelId, query)),
  );

  server.registerTool(
    'get_contact',
    {
      title: 'Get a contact',
      description: 'One contact of a funnel with its meta, UTM parameters, custom properties and messages.',
      inputSchema: { funnelId, contactId },
      outputSchema: CONTACT,
      annotations: READS,
    },
    ({ funnelId, contactId }) => toolResult(() => contacts.get(companyId, funnelId, contactId)),
  );

  server.registerTool(
    'create_contact',
    {
      title: 'Create a contact',
      description:
        'Creates a contact in a funnel. email or phone is required. status must be one of the ' +
        "funnel's contactStatuses (get_funnel lists them; default: the first). Automations for the initial status run unless " +
        'skipAutomationTrigger is true. Custom properties are set afterwards with update_contact_value.',
      inputSchema: {
        funnelId,
        email: optionalText('Email address (required when phone is absent)'),
        phone: optionalText('Phone number, E.164 when possible (required when email is absent)'),
        firstName: optionalText('Given name'),
        lastName: optionalText('Family name'),
        status: optionalText("Lifecycle status, one of the funnel's contactStatuses (e.g. lead)"),
        website: optionalText('Website URL'),
        birthday: optionalText('Birthday, typically an ISO date (YYYY-MM-DD)'),
        address,
        skipAutomationTrigger,
      },
      outputSchema: CONTACT,
      // Adds a contact (nothing is overwritten); each call adds another. Its automations may call
      // webhooks outside this service.
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    ({ funnelId, ...input }) =>
      toolResult(async () => (await contacts.create(companyId, funnelId, input)).contact),
  );

  server.registerTool(
    'update_contact_value',
    {
      title: 'Update one contact field',
      description:
        `Sets one field of a contact. Standard fields: ${STANDARD_FIELDS_TEXT}. ` +
        `Any other name (letters, digits, _ - ., up to ${MAX_CUSTOM_PROPERTY_NAME_LENGTH} characters) is stored as a custom property; ` +
        'reserved names (ps_*, id, meta, ...) are refused. A number or boolean value is stored as its ' +
        'string form. Returns {id, fieldName, value, updatedAt}.',
      inputSchema: {
        funnelId,
        contactId,
        fieldName: storableString().describe('The field or custom property to set'),
        value: z
          .union([storableString(), z.number(), z.boolean()])
          .describe('The new value; a number or boolean is stored as its string form (42 as "42")'),
        skipAutomationTrigger,
      },
      outputSchema: CONTACT_VALUE,
      // Overwrites the field's value. The same value again leaves the contact as it was and fires
      // no automation (only the edit history gains a row); a change may call webhooks.
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    ({ funnelId, contactId, value, ...input }) =>
      toolResult(() =>
        contacts.updateValue(companyId, funnelId, contactId, { ...input, value: String(value) }),
      ),
  );

  server.registerTool(
    'update_contact',
    {
      title: 'Update many fields of a contact',
      description:
        'Changes several fields of a contact at once, all or nothing: status, email, phone, firstName, lastName, ' +
        'website, birthday, address parts, and custom properties (merged; null removes one; typed properties ' +
        'take values of their type). null or "" clears a standard field (never status, and never both email ' +
        'and phone). Automations fire once per changed field unless skipAutomationTrigger. Returns the contact.',
      inputSchema: {
        funnelId,
        contactId,
        status: optionalText("One of the funnel's contactStatuses"),
        email: storableString().nullable().optional().describe('Email address; null clears it'),
        phone: storableString().nullable().optional().describe('Phone number; null clears it'),
        firstName: storableString().nullable().optional().describe('Given name; null clears it'),
        lastName: storableString().nullable().optional().describe('Family name; null clears it'),
        website: storableString().nullable().optional().describe('Website URL; null clears it'),
        birthday: storableString().nullable().optional().describe('YYYY-MM-DD; null clears it'),
        address,
        properties: z
          .record(z.string(), propertyValue.nullable())
          .optional()
          .describe('Custom properties to set (merged into the contact’s); null removes one'),
        skipAutomationTrigger,
      },
      outputSchema: CONTACT,
      // Overwrites the fields given; the same call again changes nothing more and fires nothing.
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    ({ funnelId, contactId, ...input }) =>
      toolResult(() => contacts.patch(companyId, funnelId, contactId, input)),
  );

  server.registerTool(
    'upsert_contacts',
    {
      title: 'Create or update contacts in a batch',
      description:
        `Creates up to ${MAX_BATCH_CONTACTS} contacts at once, or with upsertBy (email, phone or a unique custom ` +
        'property) updates the contact whose key matches and creates the others; items with the same key are one ' +
        'contact. Each item stands alone: a bad one is refused in its result, the others are written. Returns ' +
        '{data: [{index, status: 201|200|400|409, data?: Contact, error?}]} in the order given.',
      inputSchema: {
        funnelId,
        contacts: z
          .array(
            z.strictObject({
              email: optionalText('Email address (a new contact needs an email or a phone)'),
              phone: optionalText('Phone number, E.164 when possible'),
              firstName: optionalText('Given name'),
              lastName: optionalText('Family name'),
              status: optionalText(
                "One of the funnel's contactStatuses (default for a new contact: the first)",
              ),
              website: optionalText('Website URL'),
              birthday: optionalText('YYYY-MM-DD'),
              address,
              properties: z
                .record(z.string(), propertyValue.nullable())
                .optional()
                .describe('Custom properties (a unique one can be the upsertBy key)'),
              skipAutomationTrigger,
            }),
          )
          .min(1)
          .max(MAX_BATCH_CONTACTS)
          .describe(`1 to ${MAX_BATCH_CONTACTS} contacts`),
        upsertBy: storableString()
          .optional()
          .describe('email, phone or the name of a unique property; without it every item is created'),
        skipAutomationTrigger,
      },
      outputSchema: BATCH_RESULT,
      // Without upsertBy each call adds contacts; automations of the writes may call webhooks.
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    ({ funnelId, ...input }) =>
      toolResult(async () => (await contacts.batch(companyId, funnelId, input)).body),
  );

  server.registerTool(
    'delete_contact',
    {
      title: 'Erase a contact',
      description:
        'Erases a contact for good (a data subject’s erasure request): the contact, its field history, ' +
        'messages and automation runs. Metrics keep their counts without the link to it. Cannot be undone. ' +
        'Returns {id, deleted: true}.',
      inputSchema: { funnelId, contactId },
      outputSchema: ERASED_CONTACT,
      // Removes data for good; a second call changes nothing more (it answers Contact not found).
      // A contact.deleted automation or subscription may call webhooks.
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    ({ funnelId, contactId }) =>
      toolResult(async () => {
        await contacts.erase(companyId, funnelId, contactId);
        return { id: contactId, deleted: true };
      }),
  );
}

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
        sortField: z.enum(SORT_FIELDS).default(DEFAULT_SORT_FIELD).describe('Field to sort by'),
        sortOrder: z
          .literal([...SORT_ORDERS])
          .default(DEFAULT_SORT_ORDER)
          .describe('-1 descending, 1 ascending (missing values sort lowest)'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_LIMIT)
          .default(DEFAULT_LIMIT)
          .describe(`Page size, 1 to ${MAX_LIMIT}`),
        cursor: z.string().max(MAX_CURSOR_LENGTH).optional().describe('meta.nextCursor of the previous page'),
      },
      outputSchema: CONTACT_SEARCH_PAGE,
      annotations: READS,
    },
    ({ funnelId, ...input }) => toolResult(() => search.search(companyId, funnelId, input)),
  );
}
