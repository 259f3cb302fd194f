import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { MAX_MESSAGE_SUBJECT_LENGTH, MESSAGE_TYPES } from '@app/contacts';
import { MAX_AUTOMATION_NAME_LENGTH } from '../automation-limits';

// Checked in depth by AutomationsService.create (the rules the admin CLI applies); the DTO documents
// and admits the members. Webhook members are not among them: webhooks are subscribed through
// /v1/funnels/{funnelId}/webhooks, whose targets are checked against internal addresses.
export class CreateAutomationDto {
  @ApiProperty({
    example: 'contact.created',
    description:
      'contact.created, contact.updated (any field changed), status:<status> (one of the funnel’s) or field:<fieldName>',
  })
  @Allow()
  on: string;

  @ApiProperty({ enum: MESSAGE_TYPES, description: 'email sends over SMTP; sms records the message' })
  @Allow()
  message: string;

  @ApiPropertyOptional({ example: 'Welcome {{firstName}}', maxLength: MAX_MESSAGE_SUBJECT_LENGTH })
  @Allow()
  subject?: string;

  @ApiProperty({
    example: 'Hello {{firstName}}, thanks for signing up!',
    description: '{{path}} reads the Contact JSON',
  })
  @Allow()
  template: string;

  @ApiPropertyOptional({
    maxLength: MAX_AUTOMATION_NAME_LENGTH,
    description: 'Default: "<message> message on <on>"',
  })
  @Allow()
  name?: string;

  @ApiPropertyOptional({ description: 'email: record opens and clicks (default true)' })
  @Allow()
  tracking?: boolean;
}

export class UpdateAutomationDto {
  @ApiProperty({ description: 'false: the automation records no more runs (pending runs still deliver)' })
  @Allow()
  enabled: boolean;
}

export class AutomationDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ example: 'contact.created' }) trigger: string;
  @ApiProperty() enabled: boolean;
  @ApiProperty({ enum: ['webhook', 'message'] }) action: string;
  @ApiProperty({ type: String, nullable: true, description: 'webhook automations' }) webhookUrl:
    string | null;
  @ApiProperty({ description: 'webhook automations: requests carry X-Signature' }) signed: boolean;
  @ApiProperty({ type: String, nullable: true, enum: MESSAGE_TYPES }) messageChannel: string | null;
  @ApiProperty({ description: 'email: opens and clicks recorded' }) tracking: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class AutomationResponse {
  @ApiProperty({ type: AutomationDto }) data: AutomationDto;
}

export class AutomationListResponse {
  @ApiProperty({ type: [AutomationDto] }) data: AutomationDto[];
}
