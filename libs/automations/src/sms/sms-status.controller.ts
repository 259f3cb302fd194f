import { Body, Controller, Headers, HttpCode, Post, Req, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Public } from '@app/auth';
import { SmsStatusDocs, SmsStatusReportDto } from './sms-status.docs';
import { SmsStatusService } from './sms-status.service';

/** Where the SMS gateway reports delivery: public, authorised by its signature alone. */
@ApiTags('SMS')
@Controller({ path: 'sms/status', version: VERSION_NEUTRAL })
export class SmsStatusController {
  constructor(private readonly status: SmsStatusService) {}

  @Post()
  @Public()
  @HttpCode(204)
  @SmsStatusDocs()
  async report(
    @Req() req: { rawBody?: Buffer },
    @Headers('x-signature') signature: string | undefined,
    @Body() body: SmsStatusReportDto,
  ): Promise<void> {
    await this.status.report(req.rawBody, signature, body);
  }
}
