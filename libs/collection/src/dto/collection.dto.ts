import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { TrackingEventDto } from '@app/metrics';

export class CollectRequest {
  @ApiProperty({
    type: [TrackingEventDto],
    minItems: 1,
    maxItems: 50,
    description:
      'The events API’s events, without visitorId (set by the service), without message events and without a conversion’s contactId; device may be left out',
  })
  events: TrackingEventDto[];
}

export class FormFieldsDto {
  @ApiPropertyOptional({ example: 'ada@example.com', description: 'email or phone is required' })
  email?: string;
  @ApiPropertyOptional({ example: '+4915112345678' })
  phone?: string;
  @ApiPropertyOptional({ example: 'Ada' })
  firstName?: string;
  @ApiPropertyOptional({ example: 'Lovelace' })
  lastName?: string;
  @ApiPropertyOptional({ example: 'Main Street 1, 10115 Berlin' })
  fullAddress?: string;
  @ApiPropertyOptional()
  postalCode?: string;
  @ApiPropertyOptional()
  city?: string;
  @ApiPropertyOptional()
  state?: string;
  @ApiPropertyOptional()
  country?: string;
  @ApiPropertyOptional()
  street?: string;
  @ApiPropertyOptional()
  houseNumber?: string;
  @ApiPropertyOptional({ example: 'https://example.com' })
  website?: string;
  @ApiPropertyOptional({ example: '1990-12-10', description: 'YYYY-MM-DD' })
  birthday?: string;
}

export class FormAnswerDto {
  @ApiProperty({ example: 'question_1', description: 'Becomes the contact property of that name' })
  questionId: string;

  @ApiProperty({ type: [String], example: ['Grow my audience'], description: 'Stored joined with ", "' })
  answers: string[];
}

export class PageContextDto {
  @ApiPropertyOptional({
    example: 'Europe/Berlin',
    description: 'The browser’s IANA time zone (meta.ps_timezone)',
  })
  timezone?: string;

  @ApiPropertyOptional({ description: 'The page ran inside a frame (meta.ps_embed)' })
  embed?: boolean;
}

export class SubmissionRequest {
  @ApiProperty({ example: 'lq3k2m1x9f0a', description: 'The tracker’s session (window.crm.sessionId)' })
  sessionId: string;

  @ApiProperty({
    type: FormFieldsDto,
    description: 'The Contact’s fields by name, each checked by its Contact rule; other members are ignored',
  })
  fields: FormFieldsDto;

  @ApiPropertyOptional({ type: [FormAnswerDto], maxItems: 50 })
  answers?: FormAnswerDto[];

  @ApiPropertyOptional({ type: PageContextDto })
  page?: PageContextDto;

  @ApiPropertyOptional({
    description:
      'The honeypot input’s value (named crm_trap in the form): a filled one marks a bot, nothing is stored',
  })
  trap?: string;
}
