import { applyDecorators } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
} from '@nestjs/swagger';
import { ApiErrorResponses, ErrorResponseDoc } from '@app/core';
import { ApiFunnelIdParam, FUNNEL_NOT_FOUND } from '@app/workspaces';
import { ContactListResponse, ContactResponse, ContactValuesResponse } from './dto/contact.dto';
import { BatchContactsDto, BatchContactsResponse, PatchContactDto } from './dto/batch-contacts.dto';
import { CreateContactDto } from './dto/create-contact.dto';
import { UpdateContactValueDto } from './dto/update-contact-value.dto';
import { MAX_PROPERTIES } from './contact-rules';
import { MAX_BATCH_CONTACTS } from './contacts-batch';
import { FILTER_RULES, PAGING_RULES } from './contacts-list.query';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from './entities/idempotency-key.entity';
import { IDEMPOTENCY_KEY_RULE, IDEMPOTENCY_KEY_TTL_HOURS, IdempotencyKeyReusedError } from './idempotency';

const ApiContactIdParam = () =>
  ApiParam({
    name: 'contactId',
    format: 'uuid',
    description: 'Not a UUID: 400; unknown, in another funnel or another company’s: 404.',
  });

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

const UNIQUE_VALUE_TAKEN =
  'properties.orderId is unique: another contact of the funnel already holds this value';

export const PatchContactDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Update many fields of a contact',
      description:
        'Changes any of the writable fields at once, in one transaction: each by the rule of PUT …/values (status ' +
        'one of the funnel’s, email or phone must remain, formats and lengths, reserved names refused), `address` ' +
        'part by part, `properties` merged (null removes one; values checked against their definitions). Any ' +
        'problem is a 400 and nothing changes. The fields whose value changes are kept as field-value records, set ' +
        'meta.ps_user_edited_at, and each triggers its automations (as PUT …/values would) unless ' +
        'skipAutomationTrigger is true. Answers the contact as it now is.',
    }),
    ApiFunnelIdParam(),
    ApiContactIdParam(),
    ApiBody({ type: PatchContactDto }),
    ApiOkResponse({ type: ContactResponse, description: 'The updated contact' }),
    ApiErrorResponses({
      400: {
        description:
          'An invalid value, a field that cannot be cleared, an unknown member or an invalid path id',
        examples: [
          'email must be a valid email address',
          "status must be one of the funnel's statuses: lead, converted",
          'email cannot be cleared: a contact needs an email or a phone',
          'properties.ps_source is a reserved system field',
          'properties.score must be a number',
          'nickname is not a recognised field',
        ],
      },
      404: CONTACT_NOT_FOUND,
      409: {
        description: 'A unique property’s value is held by another contact',
        examples: [UNIQUE_VALUE_TAKEN],
      },
    }),
  );

export const BatchContactsDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Create or upsert contacts in a batch',
      description:
        `Up to ${MAX_BATCH_CONTACTS} contacts in one request (one request against the rate limit), each standing ` +
        'alone: a bad item is refused in its result and the others are written. Without `upsertBy` each item is ' +
        'created, checked as POST …/contacts checks it (plus `properties`). With `upsertBy`, an item whose key ' +
        'matches a contact of the funnel updates it by the rules of PATCH (members sent null or empty change ' +
        'nothing), otherwise it is created; items with the same key are one contact. Automations and webhook ' +
        'subscriptions fire per created or changed contact unless skipAutomationTrigger. Answers 200 when every ' +
        'item succeeded, 207 otherwise, with one result per item in request order.',
    }),
    ApiFunnelIdParam(),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'As on POST …/contacts: a retry with the same key and body answers the first response (same status and ' +
        'body, `Idempotent-Replayed: true`) and writes nothing; the same key with another body answers 422.',
    }),
    ApiBody({ type: BatchContactsDto }),
    ApiOkResponse({ type: BatchContactsResponse, description: 'Every item succeeded' }),
    ApiResponse({
      status: 207,
      type: BatchContactsResponse,
      description: 'Some items were refused (see each status)',
    }),
    ApiErrorResponses({
      400: {
        description:
          'A malformed envelope (contacts not an array of 1 to 100, an unknown upsertBy, an unknown member), a bad ' +
          'Idempotency-Key or funnelId: nothing is written',
        examples: [
          `contacts must be an array of 1 to ${MAX_BATCH_CONTACTS} contacts`,
          'upsertBy must be email, phone or a unique property of the funnel (orderId)',
          IDEMPOTENCY_KEY_RULE,
        ],
      },
      404: FUNNEL_NOT_FOUND,
      422: {
        description: 'The Idempotency-Key was already used with a different request',
        examples: [new IdempotencyKeyReusedError().message],
      },
    }),
  );
