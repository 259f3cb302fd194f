import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { MAX_BATCH_CONTACTS } from '../contacts-batch';
import { MAX_PROPERTIES } from '../contact-rules';
import { ContactDto } from './contact.dto';
import { ContactAddressInputDto, CreateContactDto } from './create-contact.dto';

// Swagger schemas; the rules are checked by ContactsService, item by item.

const PROPERTIES_SCHEMA = {
  type: 'object' as const,
  maxProperties: MAX_PROPERTIES,
  additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
  example: { plan: 'pro', score: 42 },
};

export class BatchContactItemDto extends CreateContactDto {
  @ApiPropertyOptional({
    ...PROPERTIES_SCHEMA,
    description:
      'Custom properties, each checked against its definition when it has one (else stored as text). On an ' +
      'update they are merged into the contact’s; `null` removes one.',
  })
  declare properties?: never;
}

export class BatchContactsDto {
  @ApiProperty({ type: [BatchContactItemDto], minItems: 1, maxItems: MAX_BATCH_CONTACTS })
  contacts: BatchContactItemDto[];

  @ApiPropertyOptional({
    example: 'email',
    description:
      'Without it every item is created. With it, an item whose key matches a contact of the funnel updates it ' +
      '(the oldest one when several match; the members it carries change, the others stay), otherwise it is ' +
      'created: `email` (any case), `phone` (its digits) or the name of a unique property (in `properties`). ' +
      'Items of one batch with the same key are one contact.',
  })
  upsertBy?: string;

  @ApiPropertyOptional({ default: false, description: 'true skips the automations of every item' })
  skipAutomationTrigger?: boolean;
}

export class BatchItemErrorDto {
  @ApiProperty({ type: 'integer', example: 1 }) index: number;
  @ApiProperty({
    type: 'integer',
    example: 400,
    description: '400 invalid item, 409 a unique value held elsewhere',
  })
  status: number;
  @ApiProperty({ example: 'email must be a valid email address' }) error: string;
  @ApiPropertyOptional({ type: [String], description: 'Every problem, when there are several' })
  details?: string[];
}

export class BatchItemSuccessDto {
  @ApiProperty({ type: 'integer', example: 0, description: 'The item’s position in the request' })
  index: number;
  @ApiProperty({ type: 'integer', enum: [200, 201], description: '201 created, 200 updated (or unchanged)' })
  status: number;
  @ApiProperty({ type: ContactDto }) data: ContactDto;
}

@ApiExtraModels(BatchItemSuccessDto, BatchItemErrorDto)
export class BatchContactsResponse {
  @ApiProperty({
    description: 'One result per item, in request order',
    type: 'array',
    items: {
      oneOf: [{ $ref: getSchemaPath(BatchItemSuccessDto) }, { $ref: getSchemaPath(BatchItemErrorDto) }],
    },
  })
  data: (BatchItemSuccessDto | BatchItemErrorDto)[];
}

export class PatchContactDto {
  @ApiPropertyOptional({ example: 'converted', description: "One of the funnel's statuses" }) status?: string;
  @ApiPropertyOptional({
    type: 'string',
    example: 'ada@example.com',
    nullable: true,
    description: 'null or "" clears it (not both email and phone)',
  })
  email?: string | null;
  @ApiPropertyOptional({ type: 'string', example: '+4915112345678', nullable: true }) phone?: string | null;
  @ApiPropertyOptional({ type: 'string', example: 'Ada', nullable: true }) firstName?: string | null;
  @ApiPropertyOptional({ type: 'string', example: 'Lovelace', nullable: true }) lastName?: string | null;
  @ApiPropertyOptional({ type: 'string', example: 'https://ada.example.com', nullable: true }) website?:
    string | null;
  @ApiPropertyOptional({ type: 'string', example: '1815-12-10', nullable: true }) birthday?: string | null;
  @ApiPropertyOptional({
    type: ContactAddressInputDto,
    description: 'The parts given change; null or "" clears one',
  })
  address?: ContactAddressInputDto;
  @ApiPropertyOptional({
    ...PROPERTIES_SCHEMA,
    additionalProperties: {
      oneOf: [{ type: 'string', nullable: true }, { type: 'number' }, { type: 'boolean' }],
    },
    description: 'Merged into the contact’s properties; null removes one. Checked against their definitions.',
  })
  properties?: Record<string, string | number | boolean | null>;
  @ApiPropertyOptional({ default: false, description: 'true skips the automations of the changes' })
  skipAutomationTrigger?: boolean;
}
