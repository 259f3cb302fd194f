import { applyDecorators } from '@nestjs/common';
import {
  ApiBody,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiProperty,
  ApiResponse,
} from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { ApiErrorResponses } from '@app/core';
import { ApiFunnelIdParam } from '@app/workspaces';
import { INVALID_LINK } from './email-subscription.service';
import { INVALID_TRACKING_LINK } from './message-engagement.service';

export class EmailSubscriptionDto {
  @ApiProperty({
    description: 'true subscribes the contact to email again, false unsubscribes it',
    example: true,
  })
  // Checked by the service, so every door answers the same.
  @Allow()
  subscribed: boolean;
}

class EmailSubscriptionView {
  @ApiProperty({ format: 'uuid' }) contactId: string;
  @ApiProperty() subscribed: boolean;
}

export class EmailSubscriptionResponse {
  @ApiProperty({ type: EmailSubscriptionView }) data: EmailSubscriptionView;
}

const TOKEN_PARAM = ApiParam({
  name: 'token',
  description: 'The signed token of an email’s unsubscribe link; an altered or made-up token changes nothing',
});
const HTML = { 'text/html': { schema: { type: 'string' } } };
// Every text the API reads must be storable: a token holding a NUL byte is refused before it is read.
const UNSTORABLE_TOKEN = { description: 'The token holds a character no text may (a NUL byte)' };

export const UnsubscribePageDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Unsubscribe page of an email (public)',
      description:
        'Opened from the link in an email’s footer: a page with an Unsubscribe button (a GET changes ' +
        'nothing, since mail scanners follow links). No API key.',
    }),
    TOKEN_PARAM,
    ApiProduces('text/html'),
    ApiOkResponse({ description: 'The page with the button', content: HTML }),
    ApiErrorResponses({
      400: UNSTORABLE_TOKEN,
      404: { description: 'The token is not valid', examples: [INVALID_LINK] },
    }),
  );

export const UnsubscribeDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Unsubscribe from email (one-click, public)',
      description:
        'RFC 8058 one-click unsubscribe (`List-Unsubscribe-Post: List-Unsubscribe=One-Click`) and the ' +
        'page’s button: marks the contact unsubscribed (`meta.ps_unsubscribed`, `meta.ps_unsubscribed_at`); ' +
        'email automations then skip it. Repeating it changes nothing. No API key; subscribing again is ' +
        '`PUT …/contacts/{contactId}/email-subscription` only.',
    }),
    TOKEN_PARAM,
    ApiProduces('text/html'),
    ApiOkResponse({ description: 'Unsubscribed (a confirmation page)', content: HTML }),
    ApiErrorResponses({
      400: UNSTORABLE_TOKEN,
      404: { description: 'The token is not valid: nothing changed', examples: [INVALID_LINK] },
    }),
  );

export const SetEmailSubscriptionDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Subscribe a contact to email again, or unsubscribe it',
      description:
        '`{"subscribed": true}` removes `meta.ps_unsubscribed` (the only way back after an unsubscribe ' +
        'link); `false` unsubscribes as the link does.',
    }),
    ApiFunnelIdParam(),
    ApiParam({ name: 'contactId', format: 'uuid', description: 'The contact id' }),
    ApiBody({ type: EmailSubscriptionDto }),
    ApiOkResponse({ type: EmailSubscriptionResponse }),
    ApiErrorResponses({
      400: {
        description: 'An id is not a UUID, or subscribed is not a boolean',
        examples: ['subscribed must be true or false'],
      },
      404: {
        description: 'The funnel or contact does not exist or belongs to another company',
        examples: ['Contact not found'],
      },
    }),
  );

export const OpenPixelDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Open pixel of an email (public)',
      description:
        'The 1×1 image in a tracked email’s HTML part: records `message_opened` for the message (the first ' +
        'open counts in the KPIs). No API key.',
    }),
    ApiParam({ name: 'token', description: 'The signed token of the message’s pixel' }),
    ApiProduces('image/gif'),
    ApiOkResponse({
      description: 'A transparent GIF',
      content: { 'image/gif': { schema: { type: 'string', format: 'binary' } } },
    }),
    ApiErrorResponses({
      400: UNSTORABLE_TOKEN,
      404: { description: 'The token is not valid: nothing recorded', examples: [INVALID_TRACKING_LINK] },
    }),
  );

export const TrackedClickDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Tracked link of an email (public)',
      description:
        'Redirects to the link of the message the token names (only a web address the message’s template ' +
        'carries: never an open redirect) and records `message_opened`. No API key.',
    }),
    ApiParam({ name: 'token', description: 'The signed token of the message and link' }),
    ApiResponse({
      status: 302,
      description: 'To the message’s link',
      headers: { Location: { description: 'The link', schema: { type: 'string' } } },
    }),
    ApiErrorResponses({
      400: UNSTORABLE_TOKEN,
      404: {
        description: 'The token is not valid, or the message is gone: nothing recorded',
        examples: [INVALID_TRACKING_LINK, 'The message of this link no longer exists'],
      },
    }),
  );
