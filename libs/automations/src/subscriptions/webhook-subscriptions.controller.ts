import { Body, Controller, Delete, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentCompany, RequirePermissions } from '@app/auth';
import {
  CreatedWebhookSubscriptionResponse,
  CreateWebhookSubscriptionDto,
  WebhookSubscriptionListResponse,
  WebhookSubscriptionResponse,
} from './dto/webhook-subscription.dto';
import {
  CreateWebhookSubscriptionDocs,
  DeleteWebhookSubscriptionDocs,
  GetWebhookSubscriptionDocs,
  ListWebhookSubscriptionsDocs,
} from './webhook-subscriptions.docs';
import { WebhookSubscriptionsService } from './webhook-subscriptions.service';

@ApiTags('Webhooks')
@Controller({ path: 'funnels/:funnelId/webhooks', version: '1' })
export class WebhookSubscriptionsController {
  constructor(private readonly subscriptions: WebhookSubscriptionsService) {}

  @Post()
  @HttpCode(201)
  @RequirePermissions('webhooks:write')
  @CreateWebhookSubscriptionDocs()
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
  @ListWebhookSubscriptionsDocs()
  async list(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
  ): Promise<WebhookSubscriptionListResponse> {
    return { data: await this.subscriptions.list(companyId, funnelId) };
  }

  @Get(':webhookId')
  @RequirePermissions('webhooks:write')
  @GetWebhookSubscriptionDocs()
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
  @DeleteWebhookSubscriptionDocs()
  async delete(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('webhookId') webhookId: string,
  ): Promise<void> {
    await this.subscriptions.delete(companyId, funnelId, webhookId);
  }
}
