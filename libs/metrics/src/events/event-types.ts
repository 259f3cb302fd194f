/** The tracking events metrics are computed from (product decisions §5). */
export const EVENT_TYPES = [
  'session_start',
  'page_view',
  'button_click',
  'answer',
  'conversion',
  'completion',
  'message_delivered',
  'message_opened',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const DEVICES = ['mobile', 'desktop', 'tablet', 'other'] as const;
export type Device = (typeof DEVICES)[number];

export const AB_VARIANTS = ['original', 'variant'] as const;
type AbVariant = (typeof AB_VARIANTS)[number];

export const UTM_FIELDS = ['source', 'medium', 'campaign', 'term', 'content'] as const;

export const MAX_EVENTS_PER_BATCH = 1000;

export interface SessionStartFields {
  visitorId: string;
  device: Device;
  utm?: Partial<Record<(typeof UTM_FIELDS)[number], string>>;
  abVariant?: AbVariant;
}
export interface PageViewFields {
  pageSlug: string;
  timeOnPageMs?: number;
}
export interface ButtonClickFields {
  pageSlug: string;
  buttonId: string;
  buttonLabel?: string;
}
export interface AnswerFields {
  questionId: string;
  questionTitle: string;
  answers: string[];
}
export interface ConversionFields {
  contactId?: string;
}
export interface MessageFields {
  messageId: string;
}

/** The type-specific members of an event, in a fixed member order (the event id hashes them). */
export type EventFields =
  | SessionStartFields
  | PageViewFields
  | ButtonClickFields
  | AnswerFields
  | ConversionFields
  | MessageFields
  | Record<string, never>;

/** A validated event. `eventId` is derived from its content, so a repeated event has the same id. */
export interface TrackedEvent {
  eventId: string;
  type: EventType;
  sessionId: string;
  /** Epoch milliseconds. */
  occurredAt: number;
  fields: EventFields;
  /** `fields` as canonical JSON: hashed into the id and stored as the payload. */
  fieldsJson: string;
}
