import { Body, Controller, HttpCode, HttpStatus, Options, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '@app/auth';
import { browserRequest } from './browser-request';
import { CollectService } from './collect.service';
import { allowOrigin, serveCollect, withCors } from './collect-route';
import { CollectDocs, SubmitDocs } from './collection.docs';
import { CollectionDoor } from './collection-door';
import { SubmissionsService } from './submissions.service';

const PREFLIGHT_MAX_AGE_SECONDS = 86_400;

/**
 * The public doors of a funnel's pages: the tracker's events and the lead form. No API key: the
 * funnel's allowed origins (CORS), the limits and the spam checks stand in for it.
 */
@ApiTags('Collection')
@Controller({ path: 'funnels/:funnelId', version: '1' })
export class CollectionController {
  constructor(
    private readonly door: CollectionDoor,
    private readonly collector: CollectService,
    private readonly submissions: SubmissionsService,
  ) {}

  @Post('collect')
  @Public({ rateLimited: false })
  @HttpCode(HttpStatus.ACCEPTED)
  @CollectDocs()
  async collect(
    @Param('funnelId') funnelId: string,
    @Req() req: Request,
    // The body, JSON or text/plain, is read by the app's parsers: validated as one events batch.
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    // Served by collectRoute ahead of Nest's router in the app; the same work here otherwise.
    await serveCollect(this.collector, funnelId, req, res);
  }

  @Post('submissions')
  @Public({ rateLimited: false })
  @HttpCode(HttpStatus.ACCEPTED)
  @SubmitDocs()
  async submit(
    @Param('funnelId') funnelId: string,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Body() body: unknown,
  ): Promise<void> {
    const browser = browserRequest(req);
    await withCors(res, browser.origin, () => this.submissions.submit(funnelId, browser, body));
  }

  /** The preflight of a JSON request: answered with CORS headers for an allowed origin only (403 otherwise). */
  @Options(['collect', 'submissions'])
  @Public({ rateLimited: false })
  @ApiExcludeEndpoint()
  @HttpCode(HttpStatus.NO_CONTENT)
  async preflight(
    @Param('funnelId') funnelId: string,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    const { origin } = browserRequest(req);
    await this.door.allowedFunnel(funnelId, origin);
    allowOrigin(res, origin as string);
    res.setHeader('Access-Control-Allow-Methods', 'POST');
    res.setHeader('Access-Control-Allow-Headers', 'Content-Type');
    res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
  }
}
