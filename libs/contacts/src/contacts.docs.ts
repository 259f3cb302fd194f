import { applyDecorators } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import { ApiErrorResponses, ErrorResponseDoc } from '@app/core';
import { ApiFunnelIdParam } from '@app/workspaces';
import { ContactListResponse, ContactResponse, ContactValuesResponse } from './dto/contact.dto';
import { CreateContactDto } from './dto/create-contact.dto';
import { UpdateContactValueDto } from './dto/update-contact-value.dto';
import { MAX_PROPERTIES } from './contact-rules';
import { FILTER_RULES, PAGING_RULES } from './contacts-list.query';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from './entities/idempotency-key.entity';
import { IDEMPOTENCY_KEY_RULE, IDEMPOTENCY_KEY_TTL_HOURS, IdempotencyKeyReusedError } from './idempotency';

const ApiContactIdParam = () =>
  ApiParam({
    name: 'contactId',
    format: 'uuid',
    description: 'Not a UUID: 400; unknown, in another funnel or another company’s: 404.',
  });

const FUNNEL_NOT_FOUND: ErrorResponseDoc = {
  description: 'The funnel does not exist or belongs to another company',
  examples: ['Funnel not found'],
};
const CONTACT_NOT_FOUND: ErrorResponseDoc = {
  description: 'The funnel or contact does not exist or belongs to another company',
  examples: ['Funnel not found', 'Contact not found'],
};

export const ListContactsDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'List contacts',
      description:
        'One page of the funnel’s contacts, optionally filtered (email, phone, status, updatedAfter, ' +
        'createdAfter; combined with AND). `total` is kept per funnel (no count per request); with filters ' +
        'it is the number of matching contacts. By `page`, a deep page costs time proportional to page × ' +
        'limit; by `cursor` (meta.nextCursor of the previous page), every page costs the same. To sync ' +
        'changes: sortField=updatedAt&sortOrder=1&updatedAfter=<last updatedAt seen>, following nextCursor.',
    }),
    ApiFunnelIdParam(),
    ApiOkResponse({ type: ContactListResponse, description: 'One page of contacts and the pagination meta' }),
    ApiErrorResponses({
      400: {
        description:
          'Invalid query parameter (integers only; unknown parameters are refused), filter, cursor or funnelId',
        examples: [
          PAGING_RULES.limit,
          PAGING_RULES.page,
          PAGING_RULES.sortField,
          PAGING_RULES.sortOrder,
          "status must be one of the funnel's statuses: lead, converted",
          FILTER_RULES.updatedAfter,
          'cursor is not valid: pass meta.nextCursor unchanged',
          PAGING_RULES.pageWithCursor,
          'funnelId must be a UUID',
        ],
      },
      404: FUNNEL_NOT_FOUND,
    }),
  );

export const CreateContactDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Create a contact',
      description:
        'Creates a contact with meta.ps_source `external-api` and meta.ps_converted_at now. At least one of ' +
        'email and phone is required; meta, utmParams and properties cannot be set. Automations for the ' +
        'contact’s creation and initial status run unless skipAutomationTrigger is true.',
    }),
    ApiFunnelIdParam(),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        `Makes retries safe: 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters, scoped to the company, remembered ` +
        `${IDEMPOTENCY_KEY_TTL_HOURS} h after a successful creation. A retry with the same key and body ` +
        'answers the first response (201, same body, header `Idempotent-Replayed: true`) and creates nothing; ' +
        'the same key with a different body or funnel answers 422. A request that failed can be retried ' +
        'with the same key.',
      example: '5f0c2b1e-order-4711',
    }),
    ApiBody({ type: CreateContactDto }),
    ApiCreatedResponse({
      type: ContactResponse,
      description: 'The created contact (or, for a retry, the first response)',
      headers: {
        Location: {
          description: 'The contact’s address: /v1/funnels/{funnelId}/contacts/{contactId}',
          schema: { type: 'string', example: '/v1/funnels/6f1c…/contacts/0b7e…' },
        },
        'Idempotent-Replayed': {
          description:
            '`true` when the body is the stored response to an earlier request with the same Idempotency-Key',
          schema: { type: 'string', enum: ['true'] },
        },
      },
    }),
    ApiErrorResponses({
      400: {
        description:
          'Malformed JSON, both email and phone missing, an invalid value, a status not configured for the funnel, ' +
          'a read-only or unknown member, a bad Idempotency-Key, or an invalid funnelId. `details` lists every problem.',
        examples: [
          'email or phone is required',
          'email must be a valid email address',
          "status must be one of the funnel's statuses: lead, converted",
          'meta is managed by the service and cannot be set',
          'nickname is not a recognised field',
          IDEMPOTENCY_KEY_RULE,
          'Malformed JSON body',
        ],
      },
      404: FUNNEL_NOT_FOUND,
      422: {
        description: 'The Idempotency-Key was already used with a different request',
        examples: [new IdempotencyKeyReusedError().message],
      },
    }),
  );

export const GetContactDocs = () =>
  applyDecorators(
    ApiOperation({ summary: 'Get a contact', description: 'One contact of the funnel, with its messages.' }),
    ApiFunnelIdParam(),
    ApiContactIdParam(),
    ApiOkResponse({ type: ContactResponse, description: 'The contact' }),
    ApiErrorResponses({
      400: {
        description: 'funnelId or contactId is not a UUID',
        examples: ['contactId must be a UUID', 'funnelId must be a UUID'],
      },
      404: CONTACT_NOT_FOUND,
    }),
  );

export const UpdateContactValueDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Update one contact field value',
      description:
        'Writes one standard field or custom property, keeps the change as a field-value record and sets ' +
        'meta.ps_user_edited_at. Automations for the change (status changes included) run unless ' +
        'skipAutomationTrigger is true; writing the value a field already has triggers none.',
    }),
    ApiFunnelIdParam(),
    ApiContactIdParam(),
    ApiBody({ type: UpdateContactValueDto }),
    ApiOkResponse({ type: ContactValuesResponse, description: 'The recorded field value' }),
    ApiErrorResponses({
      400: {
        description:
          'fieldName or value missing, a reserved system field, an invalid custom property name, an invalid value ' +
          'for the field, clearing the only email or phone, or an invalid path id',
        examples: [
          'fieldName is required',
          'value is required',
          'fieldName meta is a reserved system field and cannot be written',
          'value must be a valid email address (fieldName email)',
          "value must be one of the funnel's statuses: lead, converted (fieldName status)",
          'email cannot be cleared: a contact needs an email or a phone',
          `a contact holds at most ${MAX_PROPERTIES} custom properties`,
        ],
      },
      404: CONTACT_NOT_FOUND,
    }),
  );

export const EraseContactDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Erase a contact',
      description:
        'Erases the contact for good (GDPR art. 17, CCPA), in one transaction: the contact, its field-value ' +
        'history, its messages, remembered Idempotency-Key responses that show it, and its automation runs. ' +
        'Metrics keep their counts (conversions, messages sent) without any link to the contact; the list’s ' +
        'total drops by one. Automations and webhook subscriptions on contact.deleted receive the ids only. ' +
        'A second call answers 404.',
    }),
    ApiFunnelIdParam(),
    ApiContactIdParam(),
    ApiNoContentResponse({ description: 'Erased' }),
    ApiErrorResponses({
      400: { description: 'funnelId or contactId is not a UUID', examples: ['contactId must be a UUID'] },
      404: CONTACT_NOT_FOUND,
    }),
  );
