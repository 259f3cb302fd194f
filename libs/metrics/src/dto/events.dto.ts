import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { AB_VARIANTS, DEVICES, EVENT_TYPES, MAX_EVENTS_PER_BATCH } from '../events/event-types';
import { EVENT_LIMITS } from '../events/event-readers';

class UtmDto {
  @ApiPropertyOptional({ example: 'facebook', maxLength: EVENT_LIMITS.textLength })
  source?: string;
  @ApiPropertyOptional({ example: 'cpc' })
  medium?: string;
  @ApiPropertyOptional({ example: 'autumn' })
  campaign?: string;
  @ApiPropertyOptional()
  term?: string;
  @ApiPropertyOptional()
  content?: string;
}

/** One tracking event; which members are allowed (and required) depends on `type`. */
export class TrackingEventDto {
  @ApiProperty({
    enum: EVENT_TYPES,
    description: [
      'session_start: visitorId, device; optional utm, abVariant.',
      'page_view: pageSlug; optional timeOnPageMs.',
      'button_click: pageSlug, buttonId; optional buttonLabel.',
      'answer: questionId, questionTitle, answers.',
      'conversion: optional contactId.',
      'completion: no other members.',
      'message_delivered, message_opened: messageId.',
      'Members not listed for the type are refused.',
    ].join(' '),
  })
  type: string;

  @ApiProperty({
    description: 'The visit this event belongs to',
    maxLength: EVENT_LIMITS.idLength,
    example: 's-5f1c2a',
  })
  sessionId: string;

  @ApiProperty({
    description:
      'When it happened: ISO 8601 date-time with zone (Z or ±hh:mm), from 2000-01-01 to one day from now',
    example: '2025-01-31T09:30:00.000Z',
  })
  occurredAt: string;

  @ApiPropertyOptional({
    description: 'session_start: the visitor (stable across sessions)',
    maxLength: EVENT_LIMITS.idLength,
  })
  visitorId?: string;

  @ApiPropertyOptional({ enum: DEVICES, description: 'session_start (required)' })
  device?: string;

  @ApiPropertyOptional({ type: UtmDto, description: 'session_start: UTM parameters of the visit' })
  utm?: UtmDto;

  @ApiPropertyOptional({ enum: AB_VARIANTS, description: 'session_start: A/B variant shown' })
  abVariant?: string;

  @ApiPropertyOptional({
    description: 'page_view, button_click: page slug (letters, digits, - and _)',
    example: 'start',
  })
  pageSlug?: string;

  @ApiPropertyOptional({
    description: 'page_view: milliseconds spent on the page before leaving it',
    minimum: 0,
    maximum: EVENT_LIMITS.maxTimeOnPageMs,
  })
  timeOnPageMs?: number;

  @ApiPropertyOptional({
    description: 'button_click',
    maxLength: EVENT_LIMITS.textLength,
    example: 'cta-next',
  })
  buttonId?: string;

  @ApiPropertyOptional({ description: 'button_click', maxLength: EVENT_LIMITS.textLength, example: 'Next' })
  buttonLabel?: string;

  @ApiPropertyOptional({ description: 'answer: question_<n>', example: 'question_1' })
  questionId?: string;

  @ApiPropertyOptional({
    description: 'answer',
    maxLength: EVENT_LIMITS.titleLength,
    example: 'What is your goal?',
  })
  questionTitle?: string;

  @ApiPropertyOptional({
    type: [String],
    description: `answer: 1 to ${EVENT_LIMITS.answers} answers of 1 to ${EVENT_LIMITS.textLength} characters, ${EVENT_LIMITS.answersTotalLength} in total`,
    example: ['More leads'],
  })
  answers?: string[];

  @ApiPropertyOptional({ format: 'uuid', description: 'conversion: the contact created by the submission' })
  contactId?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'message_delivered, message_opened: the contact message id',
  })
  messageId?: string;
}

export class IngestEventsRequest {
  @ApiProperty({ type: [TrackingEventDto], minItems: 1, maxItems: MAX_EVENTS_PER_BATCH })
  events: TrackingEventDto[];
}

export class IngestResult {
  @ApiProperty({
    description:
      'Events newly recorded by this request. Repeats (same sessionId, type, occurredAt and content) of events already received, or repeated within the batch, are counted once and not again here, so a retried batch answers 0.',
    example: 500,
  })
  accepted: number;
}

export class IngestEventsResponse {
  @ApiProperty({ type: IngestResult })
  data: IngestResult;
}
