import { Body, Controller, Delete, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
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
import {
  CreatedWebhookSubscriptionResponse,
  CreateWebhookSubscriptionDto,
  WebhookSubscriptionListResponse,
  WebhookSubscriptionResponse,
} from './dto/webhook-subscription.dto';
import { WebhookSubscriptionsService } from './webhook-subscriptions.service';

const FUNNEL_ID = ApiFunnelIdParam();
const WEBHOOK_ID = ApiParam({
  name: 'webhookId',
  format: 'uuid',
  description: 'The subscription id. Not a UUID: 400; unknown, in another funnel or another company’s: 404.',
});
const NOT_FOUND = ApiErrorResponse(
  404,
  'The funnel or subscription does not exist or belongs to another company',
  'Funnel not found',
  'Webhook subscription not found',
);

@ApiTags('Webhooks')
@Controller({ path: 'funnels/:funnelId/webhooks', version: '1' })
export class WebhookSubscriptionsController {
  constructor(private readonly subscriptions: WebhookSubscriptionsService) {}

  @Post()
  @HttpCode(201)
  @RequirePermissions('webhooks:write')
  @ApiOperation({
    summary: 'Subscribe to contact events (REST hook)',
    description:
      'Delivers the funnel’s contact events to targetUrl as signed JSON POSTs (the automations webhook ' +
      'format, with X-Webhook-Subscription-Id), retried with backoff until a 2xx. A 410 answer removes ' +
      'the subscription; other answers, and redirects (never followed), count as failures. The signing ' +
      'secret is in this answer only.',
  })
  @FUNNEL_ID
  @ApiBody({ type: CreateWebhookSubscriptionDto })
  @ApiCreatedResponse({
    type: CreatedWebhookSubscriptionResponse,
    description: 'The subscription and its signing secret (shown once)',
    headers: { Location: { description: 'The subscription’s address', schema: { type: 'string' } } },
  })
  @ApiErrorResponse(
    400,
    'An invalid body, event or target (not https in production, not resolving, or resolving to a loopback, ' +
      'private, link-local or cloud-metadata address)',
    'targetUrl resolves to a private address',
    'targetUrl must be https',
    'events must be a non-empty list of contact.created, contact.updated, contact.deleted or status:<status> (at most 10)',
  )
  @ApiErrorResponse(404, 'The funnel does not exist or belongs to another company', 'Funnel not found')
  @ApiErrorResponse(
    503,
    'The signing-secret key is not configured (production without AUTOMATION_SECRET_KEY)',
  )
  async create(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Body() body: CreateWebhookSubscriptionDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CreatedWebhookSubscriptionResponse> {
    const created = await this.subscriptions.create(companyId, funnelId, body);
    res.setHeader('Location', `/v1/funnels/${funnelId}/webhooks/${created.id}`);
    return { data: { ...created, secret: created.secret! } };
  }

  @Get()
  @RequirePermissions('webhooks:write')
  @ApiOperation({ summary: 'List webhook subscriptions', description: 'Oldest first, without secrets.' })
  @FUNNEL_ID
  @ApiOkResponse({ type: WebhookSubscriptionListResponse })
  @ApiErrorResponse(400, 'funnelId is not a UUID', 'funnelId must be a UUID')
  @ApiErrorResponse(404, 'The funnel does not exist or belongs to another company', 'Funnel not found')
  async list(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
  ): Promise<WebhookSubscriptionListResponse> {
    return { data: await this.subscriptions.list(companyId, funnelId) };
  }

  @Get(':webhookId')
  @RequirePermissions('webhooks:write')
  @ApiOperation({ summary: 'Get a webhook subscription', description: 'Without its secret.' })
  @FUNNEL_ID
  @WEBHOOK_ID
  @ApiOkResponse({ type: WebhookSubscriptionResponse })
  @ApiErrorResponse(400, 'funnelId or webhookId is not a UUID', 'webhookId must be a UUID')
  @NOT_FOUND
  async get(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('webhookId') webhookId: string,
  ): Promise<WebhookSubscriptionResponse> {
    return { data: await this.subscriptions.get(companyId, funnelId, webhookId) };
  }

  @Delete(':webhookId')
  @HttpCode(204)
  @RequirePermissions('webhooks:write')
  @ApiOperation({
    summary: 'Unsubscribe',
    description: 'Removes the subscription; deliveries not yet made are dropped. A second call answers 404.',
  })
  @FUNNEL_ID
  @WEBHOOK_ID
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiErrorResponse(400, 'funnelId or webhookId is not a UUID', 'webhookId must be a UUID')
  @NOT_FOUND
  async delete(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('webhookId') webhookId: string,
  ): Promise<void> {
    await this.subscriptions.delete(companyId, funnelId, webhookId);
  }
}
