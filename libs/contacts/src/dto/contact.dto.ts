import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { AddressView, ContactMessageView, ContactValuesView, ContactView } from '../contact.presenter';
import { MESSAGE_STATUSES, MESSAGE_TYPES } from '../entities/contact-message.entity';
import { ContactMetaDto } from './contact-meta.dto';

// Response schemas for Swagger; the bodies themselves are built by presentContact.

export class ContactAddressDto implements AddressView {
  @ApiPropertyOptional({ example: '10115' }) postalCode?: string;
  @ApiPropertyOptional({ example: 'Berlin' }) city?: string;
  @ApiPropertyOptional({ example: 'Berlin' }) state?: string;
  @ApiPropertyOptional({ example: 'Germany' }) country?: string;
  @ApiPropertyOptional({ example: 'Invalidenstraße' }) street?: string;
  @ApiPropertyOptional({ example: '117' }) houseNumber?: string;
}

export class UtmParamsDto {
  @ApiPropertyOptional({ example: 'google' }) utm_source?: string;
  @ApiPropertyOptional({ example: 'cpc' }) utm_medium?: string;
  @ApiPropertyOptional({ example: 'autumn' }) utm_campaign?: string;
  @ApiPropertyOptional({ example: 'crm software' }) utm_term?: string;
  @ApiPropertyOptional({ example: 'banner-a' }) utm_content?: string;
}

export class ContactMessageDto implements ContactMessageView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Internal name of the message', example: 'Welcome email' }) name: string;
  @ApiProperty({ description: 'Channel', example: 'email', enum: MESSAGE_TYPES }) type: string;
  @ApiProperty({ description: 'Rendered body', example: 'Hello Ada, thanks for signing up!' })
  content: string;
  @ApiPropertyOptional({ description: 'Email messages only', example: 'Welcome' }) subject?: string;
  @ApiProperty({
    description:
      'Read-only. What the service observed: recorded (not sent through any channel), sent (handed to the SMS gateway, no report yet), delivered (accepted by the SMTP server, or reported delivered by the gateway), opened (first open seen), failed (reported undelivered)',
    enum: MESSAGE_STATUSES,
    example: 'opened',
  })
  status: string;
  @ApiPropertyOptional({ description: 'Read-only. When a channel took the message', format: 'date-time' })
  sentAt?: string;
  @ApiPropertyOptional({
    description: 'Read-only. When the SMTP server accepted it, or the gateway reported it delivered',
    format: 'date-time',
  })
  deliveredAt?: string;
  @ApiPropertyOptional({
    description: 'Read-only. The first open (the open pixel or a tracked click)',
    format: 'date-time',
  })
  openedAt?: string;
  @ApiPropertyOptional({ description: 'Read-only. The first click on a tracked link', format: 'date-time' })
  clickedAt?: string;
  @ApiProperty({ description: 'Read-only. Clicks on the tracked links of the message', example: 1 })
  clicks: number;
  @ApiPropertyOptional({ description: 'Read-only. Why the gateway reported the message undelivered' })
  failure?: string;
}

export class ContactDto implements ContactView {
  @ApiProperty({ format: 'uuid', description: 'Unique contact identifier' }) id: string;
  @ApiProperty({ example: 'lead', description: "Lifecycle status, one of the funnel's configured statuses" })
  status: string;
  @ApiPropertyOptional({ example: 'ada@example.com' }) email?: string;
  @ApiPropertyOptional({ example: '+4915112345678', description: 'E.164 when available' }) phone?: string;
  @ApiPropertyOptional({ example: 'Ada' }) firstName?: string;
  @ApiPropertyOptional({ example: 'Lovelace' }) lastName?: string;
  @ApiPropertyOptional({ description: 'Full display name when first/last are not split' }) name?: string;
  @ApiPropertyOptional({
    description: 'Single-line address as captured; preferred over address when present',
  })
  fullAddress?: string;
  @ApiPropertyOptional({ deprecated: true, description: 'IANA timezone; deprecated, use meta.ps_timezone' })
  timezone?: string;
  @ApiPropertyOptional({ example: 'https://ada.example.com' }) website?: string;
  @ApiPropertyOptional({ example: '1815-12-10' }) birthday?: string;
  @ApiPropertyOptional({
    type: ContactAddressDto,
    description: 'Present only when at least one component is known',
  })
  address?: ContactAddressDto;
  @ApiPropertyOptional({ type: ContactMetaDto, description: 'Service-managed, read-only' })
  meta?: Record<string, string | boolean>;
  @ApiPropertyOptional({
    type: UtmParamsDto,
    description: 'First attributed visit; read-only; present only when at least one UTM value exists',
  })
  utmParams?: Record<string, string>;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: {
      oneOf: [{ type: 'string', nullable: true }, { type: 'number' }, { type: 'boolean' }],
    },
    example: { newsletter: 'yes', score: 42 },
    description:
      'Custom properties; present only when at least one exists; written one at a time with PUT .../values',
  })
  properties?: Record<string, string | number | boolean | null>;
  @ApiProperty({
    format: 'date-time',
    example: '2026-01-31T12:00:00.000Z',
    description: 'When the contact was stored',
  })
  createdAt: string;
  @ApiProperty({
    format: 'date-time',
    example: '2026-02-01T08:30:00.000Z',
    description:
      'When the contact last changed, through any door (API, MCP, automations, a message recorded); ' +
      'filter with updatedAfter and sort with sortField=updatedAt to sync what changed',
  })
  updatedAt: string;
  @ApiProperty({ type: [ContactMessageDto], description: 'Messages sent to this contact, oldest first' })
  messages: ContactMessageDto[];
}

export class PaginationMetaDto {
  @ApiProperty({ type: 'integer', example: 0, description: 'Current page, 0-based' }) page: number;
  @ApiProperty({ type: 'integer', example: 50, description: 'Page size used' }) limit: number;
  @ApiProperty({
    example: 1234,
    description: "Total contacts across all pages: the funnel's, or with filters the matching ones",
  })
  total: number;
  @ApiProperty({ example: true, description: 'true when another page exists' }) hasNext: boolean;
  @ApiPropertyOptional({
    example: 'eyJmIjoicHNfY29udmVydGVkX2F0IiwibyI6LTEsImgiOiIuLi4ifQ',
    description:
      'Present exactly when hasNext is true: pass it as cursor, with the same sortField, sortOrder and ' +
      'filters, for the next page. Opaque; a page by cursor costs the same at any depth.',
  })
  nextCursor?: string;
}

export class ContactListResponse {
  @ApiProperty({ type: [ContactDto] }) data: ContactDto[];
  @ApiProperty({ type: PaginationMetaDto }) meta: PaginationMetaDto;
}

export class ContactResponse {
  @ApiProperty({ type: ContactDto }) data: ContactDto;
}

export class ContactValuesDto implements ContactValuesView {
  @ApiProperty({ format: 'uuid', description: 'Id of the recorded field value' }) id: string;
  @ApiProperty({ example: 'status', description: 'The field written (postalCode for zip)' })
  fieldName: string;
  @ApiProperty({ example: 'converted', description: 'The value stored (trimmed)' }) value: string;
  @ApiProperty({ format: 'date-time', example: '2026-01-31T12:00:00.000Z' }) updatedAt: string;
}

export class ContactValuesResponse {
  @ApiProperty({ type: ContactValuesDto }) data: ContactValuesDto;
}
