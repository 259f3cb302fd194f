import { applyDecorators } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiErrorResponses } from '@app/core';
import { CollectRequest, SubmissionRequest } from './dto/collection.dto';

const FUNNEL = ApiParam({ name: 'funnelId', format: 'uuid', description: 'The funnel the page belongs to' });
const COMMON_ERRORS = {
  403: {
    description:
      'The request’s Origin is not among the funnel’s allowed origins, collection is off, or there is no such funnel; nothing is stored or counted',
    examples: ['This origin may not send to this funnel'],
  },
  413: { description: 'Body over 16 kB', examples: ['Request body too large (limit 16 kB)'] },
};
const limits = (what: string) =>
  `More than the ${what} a minute allowed from this client address or for this funnel (Retry-After says when to send again)`;

export const CollectDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Send tracker events from a funnel page (no API key)',
      description:
        'The tracker’s door (docs/CAPTURING.md): answered only for an Origin the funnel allows (CORS; a text/plain body needs no preflight). ' +
        'Takes 1 to 50 events of the events API (session_start, page_view, button_click, answer, conversion without contactId, completion), validated and stored by the same rules. ' +
        'The service sets a session_start’s visitorId (a hash of a salt rotated daily, the client address and user agent; of the session alone under Sec-GPC: 1 or DNT: 1) and its device from the user agent when not given. ' +
        'A bot’s or crawler’s events are answered 202 and stored nowhere. The answer says nothing else.',
    }),
    FUNNEL,
    ApiBody({ type: CollectRequest }),
    ApiAcceptedResponse({ description: 'Received (or dropped as a bot’s); no body' }),
    ApiErrorResponses({
      400: {
        description:
          'Malformed JSON, or an invalid batch as the events API says (by event index), or an event a page may not send',
        examples: ['events[0].visitorId is set by the service'],
      },
      ...COMMON_ERRORS,
      429: { description: limits('COLLECT_LIMIT_PER_ADDRESS / COLLECT_LIMIT_PER_FUNNEL requests') },
    }),
  );

export const SubmitDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Submit a funnel page’s lead form (no API key)',
      description:
        'Creates the contact, or fills what is empty of the funnel’s contact with that email (else phone), never overwriting a value set by a user or the API; ' +
        'meta.ps_source is funnel, the session’s meta and the UTM parameters of its start are added, answers become properties named by their question id (question_1). ' +
        '`contact.created` fires automations and webhooks as for any creation; the session’s conversion is recorded with the contact’s id. ' +
        'A filled honeypot (trap), a session that began less than SUBMIT_MIN_SECONDS ago or is unknown, or a bot’s request is answered 202 and stores nothing. The answer never tells a contact’s data.',
    }),
    FUNNEL,
    ApiBody({ type: SubmissionRequest }),
    ApiAcceptedResponse({ description: 'Received; no body' }),
    ApiErrorResponses({
      400: {
        description: 'Malformed JSON, a field its Contact rule refuses, or neither email nor phone',
        examples: ['email or phone is required'],
      },
      ...COMMON_ERRORS,
      429: { description: limits('SUBMIT_LIMIT_PER_ADDRESS / SUBMIT_LIMIT_PER_FUNNEL submissions') },
    }),
  );
