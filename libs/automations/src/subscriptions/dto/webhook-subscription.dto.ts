import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { MAX_WEBHOOK_URL_LENGTH } from '../../automation-limits';
import { MAX_SUBSCRIPTION_EVENTS, type CreateWebhookSubscriptionInput } from '../webhook-subscription.input';
import type { WebhookSubscriptionView } from '../webhook-subscriptions.service';

const EVENTS_DESCRIPTION =
  'What to deliver: contact.created, contact.updated (any field changed), contact.deleted (erased; ' +
  'ids only) and status:<status> (the contact’s status became it; a status of the funnel). One ' +
  'change is delivered once per subscription, however many of its events it matches.';

// Validated in depth by the service (shared by every door); the DTO documents and admits the members.
export class CreateWebhookSubscriptionDto implements CreateWebhookSubscriptionInput {
  @ApiProperty({
    example: 'https://hooks.example.com/crm/4711',
    maxLength: MAX_WEBHOOK_URL_LENGTH,
    description:
      'Where to POST the events. https in production; it must resolve to public addresses only ' +
      '(loopback, private, link-local and cloud-metadata addresses are refused here and at every delivery).',
  })
  @Allow()
  targetUrl: string;

  @ApiProperty({
    type: [String],
    example: ['contact.created', 'status:converted'],
    minItems: 1,
    maxItems: MAX_SUBSCRIPTION_EVENTS,
    description: EVENTS_DESCRIPTION,
  })
  @Allow()
  events: string[];
}

export class WebhookSubscriptionDto implements WebhookSubscriptionView {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'https://hooks.example.com/crm/4711' }) targetUrl: string;
  @ApiProperty({ type: [String], example: ['contact.created'], description: EVENTS_DESCRIPTION })
  events: string[];
  @ApiProperty({ format: 'date-time', example: '2026-01-31T12:00:00.000Z' }) createdAt: string;
}

export class CreatedWebhookSubscriptionDto extends WebhookSubscriptionDto {
  @ApiPropertyOptional({
    example: 'whsec_3q2-7wXcZ…',
    description:
      'The signing secret, shown once (stored encrypted). Every delivery carries ' +
      '`X-Signature: sha256=<hex HMAC-SHA256 of the raw body with this secret>`.',
  })
  secret: string;
}

export class WebhookSubscriptionResponse {
  @ApiProperty({ type: WebhookSubscriptionDto }) data: WebhookSubscriptionDto;
}

export class CreatedWebhookSubscriptionResponse {
  @ApiProperty({ type: CreatedWebhookSubscriptionDto }) data: CreatedWebhookSubscriptionDto;
}

export class WebhookSubscriptionListResponse {
  @ApiProperty({ type: [WebhookSubscriptionDto] }) data: WebhookSubscriptionDto[];
}
