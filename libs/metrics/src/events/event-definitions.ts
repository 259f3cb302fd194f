import type { ButtonClickFields, EventFields, PageViewFields } from './event-types';

// What metrics count of page views and clicks, declared once. The fold's segment rows
// (segments/segment-rows.ts), the read and the raw rows at a window's edges
// (rollups/rollup-reader.ts, rollups/event-sums-sql.ts) all derive from these tables, never written
// per dimension.

/**
 * The event types counted at their own time, and the plain columns of metric_events that edge
 * reads aggregate, as the event gives them: the rollup key, the time on page, the button label.
 */
export const COUNTED_EVENTS = {
  page_view: (f: EventFields) => {
    const { pageSlug, timeOnPageMs } = f as PageViewFields;
    return { key: pageSlug, timeOnPageMs, label: undefined };
  },
  button_click: (f: EventFields) => {
    const { buttonId, buttonLabel } = f as ButtonClickFields;
    return { key: buttonId, timeOnPageMs: undefined, label: buttonLabel };
  },
} as const satisfies Record<
  string,
  (f: EventFields) => { key: string; timeOnPageMs: number | undefined; label: string | undefined }
>;

export type CountedEventType = keyof typeof COUNTED_EVENTS;

/**
 * A dimension counted from events of one type, at their own time. `keyed`: one key per event's
 * `key` column, else all under ''. `timed`: also the views that reported a time on page and its
 * sum. `labelled`: also the latest label (the newest; at equal times the greatest).
 */
export interface EventDimension {
  type: CountedEventType;
  keyed: boolean;
  timed?: true;
  labelled?: true;
}

export const EVENT_DIMENSION_TABLE = {
  /** Page views per bucket (key ''), for activity by daytime. */
  activity: { type: 'page_view', keyed: false },
  /** Page views per page slug, with the views that reported a time on page and their sum. */
  page: { type: 'page_view', keyed: true, timed: true },
  /** Clicks per button id, with the latest label. */
  button: { type: 'button_click', keyed: true, labelled: true },
} as const satisfies Record<string, EventDimension>;

/** The dimensions counted from events. */
export type CountedDimensionName = keyof typeof EVENT_DIMENSION_TABLE;

/**
 * Contact messages that were delivered (an opening implies a delivery) and opened are counted at
 * the message's send time, which contacts keep, in the message rollups: the dimension `message`
 * of metric_event_rollups, keyed by MESSAGE_KEYS (events/message-store.ts).
 */
export const MESSAGE_DIMENSION = 'message';
export const MESSAGE_KEYS = { delivered: 'delivered', opened: 'opened' } as const;

/** Every declared dimension with its name, in the table's order. */
export const DECLARED_EVENT_DIMENSIONS = Object.entries(EVENT_DIMENSION_TABLE) as [
  CountedDimensionName,
  EventDimension,
][];
