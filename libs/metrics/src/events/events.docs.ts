import { applyDecorators } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiErrorResponses } from '@app/core';
import { IngestEventsRequest, IngestEventsResponse } from '../dto/events.dto';

export const IngestEventsDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Send tracking events',
      description:
        'Records 1 to 1000 tracking events of the funnel; charts, KPIs and insights are computed from them and reflect them as soon as this answers. ' +
        'The batch is validated as a whole: one bad event rejects all of it (400, `details` name the event index) and nothing is stored. ' +
        'An event sent again (same sessionId, type, occurredAt and content) counts once. Text members must not contain NUL characters or unpaired surrogates. Body limit 1 MB; a server process reads at most 16 batches over 100 kB at once and answers one more 503 with Retry-After. ' +
        'Batches may be sent several at a time: those for the same funnel are written together, so a client sending a few in parallel gets the most throughput.',
    }),
    ApiParam({ name: 'funnelId', format: 'uuid', description: 'A funnel of the key’s company' }),
    ApiBody({ type: IngestEventsRequest }),
    ApiAcceptedResponse({ type: IngestEventsResponse }),
    ApiErrorResponses({
      400: {
        description:
          'funnelId not a UUID, malformed JSON, or an invalid batch: `details` lists the problems by event index (at most 20), e.g. `events[3].device must be one of mobile, desktop, tablet, other`; nothing is stored',
      },
      404: { description: 'Funnel not found (or it belongs to another company)' },
      413: { description: 'Body over 1 MB', examples: ['Request body too large (limit 1 MB)'] },
    }),
  );
