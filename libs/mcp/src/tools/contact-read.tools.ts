import { z } from 'zod';
import type { ContactsService } from '@app/contacts';
import { contactId, cursor, optionalText, sorting } from './contact-arguments';
import { CONTACT, CONTACT_PAGE } from './output-schemas';
import { READS } from './tool-annotations';
import type { ToolContext } from './tool-context';
import { toolResult } from './tool-result';
import { funnelIdInput as funnelId } from './funnel-id.input';

/** list_contacts and get_contact: the REST list and read over the same service. */
export function registerContactReadTools(context: ToolContext, contacts: ContactsService): void {
  registerListContacts(context, contacts);
  registerGetContact(context, contacts);
}

function registerListContacts({ server, companyId }: ToolContext, contacts: ContactsService): void {
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
        ...sorting,
        cursor: cursor(
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
}

function registerGetContact({ server, companyId }: ToolContext, contacts: ContactsService): void {
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
}
