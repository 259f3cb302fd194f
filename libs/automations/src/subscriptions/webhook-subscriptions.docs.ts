import { applyDecorators } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import { ApiErrorResponses, ErrorResponseDoc } from '@app/core';
import { ApiFunnelIdParam, FUNNEL_NOT_FOUND } from '@app/workspaces';
import {
  CreatedWebhookSubscriptionResponse,
  CreateWebhookSubscriptionDto,
  WebhookSubscriptionListResponse,
  WebhookSubscriptionResponse,
} from './dto/webhook-subscription.dto';
import { MAX_SUBSCRIPTION_EVENTS, SUBSCRIPTION_EVENTS_RULE } from './webhook-subscription.input';

const ApiWebhookIdParam = () =>
  ApiParam({
    name: 'webhookId',
    format: 'uuid',
    description:
      'The subscription id. Not a UUID: 400; unknown, in another funnel or another company’s: 404.',
  });

const INVALID_FUNNEL_ID: ErrorResponseDoc = {
  description: 'funnelId is not a UUID',
  examples: ['funnelId must be a UUID'],
};
const INVALID_WEBHOOK_ID: ErrorResponseDoc = {
  description: 'funnelId or webhookId is not a UUID',
  examples: ['webhookId must be a UUID'],
};
const SUBSCRIPTION_NOT_FOUND: ErrorResponseDoc = {
  description: 'The funnel or subscription does not exist or belongs to another company',
  examples: ['Funnel not found', 'Webhook subscription not found'],
};

export const CreateWebhookSubscriptionDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Subscribe to contact events (REST hook)',
      description:
        'Delivers the funnel’s contact events to targetUrl as signed JSON POSTs (the automations webhook ' +
        'format, with X-Webhook-Subscription-Id), retried with backoff until a 2xx. A 410 answer removes ' +
        'the subscription; other answers, and redirects (never followed), count as failures. The signing ' +
        'secret is in this answer only.',
    }),
    ApiFunnelIdParam(),
    ApiBody({ type: CreateWebhookSubscriptionDto }),
    ApiCreatedResponse({
      type: CreatedWebhookSubscriptionResponse,
      description: 'The subscription and its signing secret (shown once)',
      headers: { Location: { description: 'The subscription’s address', schema: { type: 'string' } } },
    }),
    ApiErrorResponses({
      400: {
        description:
          'An invalid body, event or target (not https in production, not resolving, or resolving to a loopback, ' +
          'private, link-local or cloud-metadata address)',
        examples: [
          'targetUrl resolves to a private address',
          'targetUrl must be https',
          `${SUBSCRIPTION_EVENTS_RULE} (at most ${MAX_SUBSCRIPTION_EVENTS})`,
        ],
      },
      404: FUNNEL_NOT_FOUND,
      503: {
        description: 'The signing-secret key is not configured (production without AUTOMATION_SECRET_KEY)',
        examples: ['Webhook subscriptions are unavailable: the signing-secret key is not configured'],
      },
    }),
  );

export const ListWebhookSubscriptionsDocs = () =>
  applyDecorators(
    ApiOperation({ summary: 'List webhook subscriptions', description: 'Oldest first, without secrets.' }),
    ApiFunnelIdParam(),
    ApiOkResponse({ type: WebhookSubscriptionListResponse }),
    ApiErrorResponses({ 400: INVALID_FUNNEL_ID, 404: FUNNEL_NOT_FOUND }),
  );

export const GetWebhookSubscriptionDocs = () =>
  applyDecorators(
    ApiOperation({ summary: 'Get a webhook subscription', description: 'Without its secret.' }),
    ApiFunnelIdParam(),
    ApiWebhookIdParam(),
    ApiOkResponse({ type: WebhookSubscriptionResponse }),
    ApiErrorResponses({ 400: INVALID_WEBHOOK_ID, 404: SUBSCRIPTION_NOT_FOUND }),
  );

export const DeleteWebhookSubscriptionDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Unsubscribe',
      description:
        'Removes the subscription; deliveries not yet made are dropped. A second call answers 404.',
    }),
    ApiFunnelIdParam(),
    ApiWebhookIdParam(),
    ApiNoContentResponse({ description: 'Removed' }),
    ApiErrorResponses({ 400: INVALID_WEBHOOK_ID, 404: SUBSCRIPTION_NOT_FOUND }),
  );
