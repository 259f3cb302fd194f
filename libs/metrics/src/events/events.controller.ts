import { Body, Controller, HttpCode, HttpStatus, Param, Post } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBody,
  ApiNotFoundResponse,
  ApiOperation,
  ApiParam,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentCompany, RequirePermissions } from '@app/auth';
import { IngestEventsRequest, IngestEventsResponse } from '../dto/events.dto';
import { EventsService } from './events.service';

@ApiTags('Metrics')
@Controller({ path: 'funnels/:funnelId/events', version: '1' })
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Post()
  @HttpCode(HttpStatus.ACCEPTED)
  @RequirePermissions('events:write')
  @ApiOperation({
    summary: 'Send tracking events',
    description:
      'Records 1 to 1000 tracking events of the funnel; charts, KPIs and insights are computed from them and reflect them as soon as this answers. ' +
      'The batch is validated as a whole: one bad event rejects all of it (400, `details` name the event index) and nothing is stored. ' +
      'An event sent again (same sessionId, type, occurredAt and content) counts once. Text members must not contain NUL characters or unpaired surrogates. Body limit 1 MB. ' +
      'Batches may be sent several at a time: those for the same funnel are written together, so a client sending a few in parallel gets the most throughput.',
  })
  @ApiParam({ name: 'funnelId', format: 'uuid', description: 'A funnel of the key’s company' })
  @ApiBody({ type: IngestEventsRequest })
  @ApiAcceptedResponse({ type: IngestEventsResponse })
  @ApiBadRequestResponse({
    description:
      'funnelId not a UUID, malformed JSON, or an invalid batch: `details` lists the problems by event index (at most 20), e.g. `events[3].device must be one of mobile, desktop, tablet, other`; nothing is stored',
  })
  @ApiNotFoundResponse({ description: 'Funnel not found (or it belongs to another company)' })
  @ApiPayloadTooLargeResponse({ description: 'Body over 1 MB' })
  async ingest(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    // Validated by EventsService as a whole batch, so the error names the event index.
    @Body() body: unknown,
  ): Promise<IngestEventsResponse> {
    return { data: await this.events.ingest(companyId, funnelId, body) };
  }
}
