import { Body, Controller, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentCompany, RequirePermissions } from '@app/auth';
import { IngestEventsResponse } from '../dto/events.dto';
import { IngestEventsDocs } from './events.docs';
import { EventsService } from './events.service';

@ApiTags('Metrics')
@Controller({ path: 'funnels/:funnelId/events', version: '1' })
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Post()
  @HttpCode(HttpStatus.ACCEPTED)
  @RequirePermissions('events:write')
  @IngestEventsDocs()
  async ingest(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    // Validated by EventsService as a whole batch, so the error names the event index.
    @Body() body: unknown,
  ): Promise<IngestEventsResponse> {
    return { data: await this.events.ingest(companyId, funnelId, body) };
  }
}
