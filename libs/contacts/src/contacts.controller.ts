import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Param,
  Post,
  Put,
  Query,
  Res,
} from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentCompany, RequirePermissions } from '@app/auth';
import { ApiErrorResponse } from '@app/core';
import { ApiFunnelIdParam } from '@app/workspaces';
import { ContactsService } from './contacts.service';
import { ContactListResponse, ContactResponse, ContactValuesResponse } from './dto/contact.dto';
import { CreateContactDto } from './dto/create-contact.dto';
import { ListContactsQueryDto } from './dto/list-contacts.query.dto';
import { UpdateContactValueDto } from './dto/update-contact-value.dto';
import { IDEMPOTENCY_KEY_TTL_HOURS } from './idempotency';

const FUNNEL_ID = ApiFunnelIdParam();
const CONTACT_ID = ApiParam({
  name: 'contactId',
  format: 'uuid',
  description: 'Not a UUID: 400; unknown, in another funnel or another company’s: 404.',
});
const FUNNEL_NOT_FOUND = ApiErrorResponse(
  404,
  'The funnel does not exist or belongs to another company',
  'Funnel not found',
);
const NOT_FOUND = ApiErrorResponse(
  404,
  'The funnel or contact does not exist or belongs to another company',
  'Funnel not found',
  'Contact not found',
);

@ApiTags('Contacts')
@Controller({ path: 'funnels/:funnelId/contacts', version: '1' })
export class ContactsController {
  constructor(private readonly contacts: ContactsService) {}

  @Get()
  @RequirePermissions('crm:read')
  @ApiOperation({
    summary: 'List contacts',
    description:
      'One page of the funnel’s contacts, optionally filtered (email, phone, status, updatedAfter, ' +
      'createdAfter; combined with AND). `total` is kept per funnel (no count per request); with filters ' +
      'it is the number of matching contacts. By `page`, a deep page costs time proportional to page × ' +
      'limit; by `cursor` (meta.nextCursor of the previous page), every page costs the same. To sync ' +
      'changes: sortField=updatedAt&sortOrder=1&updatedAfter=<last updatedAt seen>, following nextCursor.',
  })
  @FUNNEL_ID
  @ApiOkResponse({ type: ContactListResponse, description: 'One page of contacts and the pagination meta' })
  @ApiErrorResponse(
    400,
    'Invalid query parameter (integers only; unknown parameters are refused), filter, cursor or funnelId',
    'limit must be an integer from 1 to 100',
    'page must be an integer of at least 0',
    'sortField must be one of ps_converted_at, email, firstName, lastName, updatedAt',
    'sortOrder must be -1 or 1',
    "status must be one of the funnel's statuses: lead, converted",
    'updatedAfter must be an ISO 8601 date-time with a zone, e.g. 2026-01-31T12:00:00Z',
    'cursor is not valid: pass meta.nextCursor unchanged',
    'page cannot be combined with cursor',
    'funnelId must be a UUID',
  )
  @FUNNEL_NOT_FOUND
  list(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Query() query: ListContactsQueryDto,
  ): Promise<ContactListResponse> {
    return this.contacts.list(companyId, funnelId, query);
  }

  @Post()
  @HttpCode(201)
  @RequirePermissions('crm:write')
  @ApiOperation({
    summary: 'Create a contact',
    description:
      'Creates a contact with meta.ps_source `external-api` and meta.ps_converted_at now. At least one of ' +
      'email and phone is required; meta, utmParams and properties cannot be set. Automations for the ' +
      'contact’s creation and initial status run unless skipAutomationTrigger is true.',
  })
  @FUNNEL_ID
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      `Makes retries safe: 1 to 255 visible ASCII characters, scoped to the company, remembered ` +
      `${IDEMPOTENCY_KEY_TTL_HOURS} h after a successful creation. A retry with the same key and body ` +
      'answers the first response (201, same body, header `Idempotent-Replayed: true`) and creates nothing; ' +
      'the same key with a different body or funnel answers 422. A request that failed can be retried ' +
      'with the same key.',
    example: '5f0c2b1e-order-4711',
  })
  @ApiBody({ type: CreateContactDto })
  @ApiCreatedResponse({
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
  })
  @ApiErrorResponse(
    400,
    'Malformed JSON, both email and phone missing, an invalid value, a status not configured for the funnel, ' +
      'a read-only or unknown member, a bad Idempotency-Key, or an invalid funnelId. `details` lists every problem.',
    'email or phone is required',
    'email must be a valid email address',
    "status must be one of the funnel's statuses: lead, converted",
    'meta is managed by the service and cannot be set',
    'nickname is not a recognised field',
    'Idempotency-Key must be 1 to 255 visible ASCII characters',
    'Malformed JSON body',
  )
  @ApiErrorResponse(
    422,
    'The Idempotency-Key was already used with a different request',
    'Idempotency-Key was already used with a different request; send a new key for a new contact',
  )
  @FUNNEL_NOT_FOUND
  async create(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Body() body: CreateContactDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ContactResponse> {
    const { contact, replayed } = await this.contacts.create(companyId, funnelId, body, { idempotencyKey });
    if (replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.setHeader('Location', `/v1/funnels/${funnelId}/contacts/${contact.id}`);
    return { data: contact };
  }

  @Get(':contactId')
  @RequirePermissions('crm:read')
  @ApiOperation({ summary: 'Get a contact', description: 'One contact of the funnel, with its messages.' })
  @FUNNEL_ID
  @CONTACT_ID
  @ApiOkResponse({ type: ContactResponse, description: 'The contact' })
  @ApiErrorResponse(
    400,
    'funnelId or contactId is not a UUID',
    'contactId must be a UUID',
    'funnelId must be a UUID',
  )
  @NOT_FOUND
  async get(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('contactId') contactId: string,
  ): Promise<ContactResponse> {
    return { data: await this.contacts.get(companyId, funnelId, contactId) };
  }

  @Put(':contactId/values')
  @RequirePermissions('crm:write')
  @ApiOperation({
    summary: 'Update one contact field value',
    description:
      'Writes one standard field or custom property, keeps the change as a field-value record and sets ' +
      'meta.ps_user_edited_at. Automations for the change (status changes included) run unless ' +
      'skipAutomationTrigger is true; writing the value a field already has triggers none.',
  })
  @FUNNEL_ID
  @CONTACT_ID
  @ApiBody({ type: UpdateContactValueDto })
  @ApiOkResponse({ type: ContactValuesResponse, description: 'The recorded field value' })
  @ApiErrorResponse(
    400,
    'fieldName or value missing, a reserved system field, an invalid custom property name, an invalid value ' +
      'for the field, clearing the only email or phone, or an invalid path id',
    'fieldName is required',
    'value is required',
    'fieldName meta is a reserved system field and cannot be written',
    'value must be a valid email address (fieldName email)',
    "value must be one of the funnel's statuses: lead, converted (fieldName status)",
    'email cannot be cleared: a contact needs an email or a phone',
    'a contact holds at most 100 custom properties',
  )
  @NOT_FOUND
  async updateValue(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('contactId') contactId: string,
    @Body() body: UpdateContactValueDto,
  ): Promise<ContactValuesResponse> {
    return { data: await this.contacts.updateValue(companyId, funnelId, contactId, body) };
  }

  @Delete(':contactId')
  @HttpCode(204)
  @RequirePermissions('crm:write')
  @ApiOperation({
    summary: 'Erase a contact',
    description:
      'Erases the contact for good (GDPR art. 17, CCPA), in one transaction: the contact, its field-value ' +
      'history, its messages, remembered Idempotency-Key responses that show it, and its automation runs. ' +
      'Metrics keep their counts (conversions, messages sent) without any link to the contact; the list’s ' +
      'total drops by one. Automations and webhook subscriptions on contact.deleted receive the ids only. ' +
      'A second call answers 404.',
  })
  @FUNNEL_ID
  @CONTACT_ID
  @ApiNoContentResponse({ description: 'Erased' })
  @ApiErrorResponse(400, 'funnelId or contactId is not a UUID', 'contactId must be a UUID')
  @NOT_FOUND
  async erase(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('contactId') contactId: string,
  ): Promise<void> {
    await this.contacts.erase(companyId, funnelId, contactId);
  }
}
