import { z } from 'zod';
import { ContactsService, MAX_BATCH_CONTACTS, MAX_CUSTOM_PROPERTY_NAME_LENGTH } from '@app/contacts';
import { storableString } from '@app/core';
import {
  address,
  contactId,
  optionalText,
  propertyValue,
  skipAutomationTrigger,
  STANDARD_FIELDS_TEXT,
} from './contact-arguments';
import { BATCH_RESULT, CONTACT, CONTACT_VALUE, ERASED_CONTACT } from './output-schemas';
import type { ToolContext } from './tool-context';
import { toolResult } from './tool-result';
import { funnelIdInput as funnelId } from './funnel-id.input';

/** The tools that write contacts, as the REST create, update, batch and erase routes do. */
export function registerContactWriteTools(context: ToolContext, contacts: ContactsService): void {
  registerCreateContact(context, contacts);
  registerUpdateContactValue(context, contacts);
  registerUpdateContact(context, contacts);
  registerUpsertContacts(context, contacts);
  registerDeleteContact(context, contacts);
}

function registerCreateContact({ server, companyId }: ToolContext, contacts: ContactsService): void {
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
}

function registerUpdateContactValue({ server, companyId }: ToolContext, contacts: ContactsService): void {
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
        value: propertyValue.describe(
          'The new value; a number or boolean is stored as its string form (42 as "42")',
        ),
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
}

function registerUpdateContact({ server, companyId }: ToolContext, contacts: ContactsService): void {
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
}

function registerUpsertContacts({ server, companyId }: ToolContext, contacts: ContactsService): void {
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
}

function registerDeleteContact({ server, companyId }: ToolContext, contacts: ContactsService): void {
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
