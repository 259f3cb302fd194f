import { applyDecorators } from '@nestjs/common';
import {
  ApiBody,
  ApiHeader,
  ApiNoContentResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
} from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { ApiErrorResponses } from '@app/core';
import { BAD_SMS_SIGNATURE, type SmsStatusReport } from './sms-status.service';

// Checked by the service (after the signature), so a forged report learns nothing from a 400.
export class SmsStatusReportDto implements SmsStatusReport {
  @ApiProperty({ format: 'uuid', description: 'The messageId of the send request' })
  @Allow()
  messageId: string;

  @ApiProperty({ enum: ['delivered', 'failed'], example: 'delivered' })
  @Allow()
  status: 'delivered' | 'failed';

  @ApiPropertyOptional({
    description: 'failed: the reason (kept in the message’s `failure`)',
    example: '30003 Unreachable handset',
  })
  @Allow()
  error?: string;
}

export const SmsStatusDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Delivery report of the SMS gateway (public, signed)',
      description:
        'The gateway set by SMS_GATEWAY_URL reports what became of a message it was sent: `delivered` ' +
        'records `message_delivered` and sets the message’s `deliveredAt`; `failed` sets its `failure`. ' +
        'The first report of a message counts; a later one changes nothing. No API key: the body is signed ' +
        'with SMS_GATEWAY_SECRET (`X-Signature: sha256=<hex HMAC-SHA256 of the exact body bytes>`).',
    }),
    ApiHeader({
      name: 'X-Signature',
      required: true,
      description: 'sha256=<hex HMAC-SHA256 of the raw body>',
    }),
    ApiBody({ type: SmsStatusReportDto }),
    ApiNoContentResponse({ description: 'Recorded (or already recorded)' }),
    ApiErrorResponses({
      400: {
        description: 'A signed report that is not one',
        examples: ['Invalid status report'],
      },
      401: {
        description: 'The signature is missing or wrong: nothing changed',
        examples: [BAD_SMS_SIGNATURE],
      },
      404: {
        description: 'No SMS has this id, or no gateway is configured',
        examples: ['No SMS message has this messageId'],
      },
    }),
  );
