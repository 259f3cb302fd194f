import { Body, Controller, Get, HttpCode, Param, Post, Put, Res, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentCompany, Public, RequirePermissions } from '@app/auth';
import {
  EmailSubscriptionDto,
  EmailSubscriptionResponse,
  OpenPixelDocs,
  TrackedClickDocs,
  SetEmailSubscriptionDocs,
  UnsubscribeDocs,
  UnsubscribePageDocs,
} from './email-subscription.docs';
import { EmailSubscriptionService } from './email-subscription.service';
import { MessageEngagementService } from './message-engagement.service';
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

// The smallest transparent GIF: the open pixel.
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** Opens and clicks of sent email (signed tokens; a click leads only to a link of the message). */
@ApiTags('Email')
@Controller({ path: 'email', version: VERSION_NEUTRAL })
export class EmailTrackingController {
  constructor(private readonly engagement: MessageEngagementService) {}

  @Get('open/:token')
  @Public()
  @OpenPixelDocs()
  async open(@Param('token') token: string, @Res() res: Response): Promise<void> {
    await this.engagement.opened(token);
    res.status(200).type('gif').setHeader('cache-control', 'no-store').send(PIXEL);
  }

  @Get('click/:token')
  @Public()
  @TrackedClickDocs()
  async click(@Param('token') token: string, @Res() res: Response): Promise<void> {
    const target = await this.engagement.clicked(token);
    res.setHeader('cache-control', 'no-store');
    res.redirect(302, target);
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
