import { Body, Controller, Get, HttpCode, Param, Post, Put, Res, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentCompany, Public, RequirePermissions } from '@app/auth';
import {
  EmailSubscriptionDto,
  EmailSubscriptionResponse,
  SetEmailSubscriptionDocs,
  UnsubscribeDocs,
  UnsubscribePageDocs,
} from './email-subscription.docs';
import { EmailSubscriptionService } from './email-subscription.service';
import { confirmPage, donePage } from './unsubscribe-page';

/** The unsubscribe link of sent email: public, authorised by its signed token alone. */
@ApiTags('Email')
@Controller({ path: 'email/unsubscribe', version: VERSION_NEUTRAL })
export class UnsubscribeController {
  constructor(private readonly subscriptions: EmailSubscriptionService) {}

  @Get(':token')
  @Public()
  @UnsubscribePageDocs()
  page(@Param('token') token: string, @Res() res: Response): void {
    this.subscriptions.assertUnsubscribeToken(token);
    sendPage(res, confirmPage());
  }

  @Post(':token')
  @Public()
  @HttpCode(200)
  @UnsubscribeDocs()
  async unsubscribe(@Param('token') token: string, @Res() res: Response): Promise<void> {
    await this.subscriptions.unsubscribeWithToken(token);
    sendPage(res, donePage());
  }
}

/** Subscribing again: an explicit, authenticated write, never a link. */
@ApiTags('Contacts')
@Controller({ path: 'funnels/:funnelId/contacts/:contactId/email-subscription', version: '1' })
export class EmailSubscriptionController {
  constructor(private readonly subscriptions: EmailSubscriptionService) {}

  @Put()
  @RequirePermissions('crm:write')
  @SetEmailSubscriptionDocs()
  async set(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Param('contactId') contactId: string,
    @Body() body: EmailSubscriptionDto,
  ): Promise<EmailSubscriptionResponse> {
    return { data: await this.subscriptions.set(companyId, funnelId, contactId, body?.subscribed) };
  }
}

function sendPage(res: Response, html: string): void {
  res.status(200).type('html').setHeader('cache-control', 'no-store').send(html);
}
