import type { ButtonClickFields, EventFields, PageViewFields } from './event-types';

// What metrics count of page views, clicks and messages, declared once. The contribution of
// ingestion (rollups/rollup-deltas.ts), the rollup read and the raw rows at a window's edges
// (rollups/rollup-reader.ts, rollups/raw-events.ts) all derive from these tables, never written
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
 * The event dimensions of the rollups (metric_event_rollups), each of one of two sources.
 */
export type EventDimension =
  /**
   * Events of one type, at their own time. `keyed`: one key per event's `key` column, else all
   * under ''. `timed`: also the views that reported a time on page and its sum. `labelled`: also
   * the latest label (the newest; at equal times the greatest).
   */
  | { source: 'events'; type: CountedEventType; keyed: boolean; timed?: true; labelled?: true }
  /**
   * Contact messages that were delivered (an opening implies a delivery) and opened (MESSAGE_KEYS),
   * counted at the message's send time, which contacts keep (read through CONTACT_MESSAGES_SQL).
   */
  | { source: 'messages' };

export const EVENT_DIMENSION_TABLE = {
  /** Page views per bucket (key ''), for activity by daytime. */
  activity: { source: 'events', type: 'page_view', keyed: false },
  /** Page views per page slug, with the views that reported a time on page and their sum. */
  page: { source: 'events', type: 'page_view', keyed: true, timed: true },
  /** Clicks per button id, with the latest label. */
  button: { source: 'events', type: 'button_click', keyed: true, labelled: true },
  /** Messages that were delivered / opened (keys), counted at the message's send time. */
  message: { source: 'messages' },
} as const satisfies Record<string, EventDimension>;

export type EventDimensionName = keyof typeof EVENT_DIMENSION_TABLE;

/** The dimensions counted from events (as opposed to messages). */
export type CountedDimensionName = {
  [N in EventDimensionName]: (typeof EVENT_DIMENSION_TABLE)[N] extends { source: 'events' } ? N : never;
}[EventDimensionName];

/** The dimensions counted from contact messages. */
export type MessageDimensionName = Exclude<EventDimensionName, CountedDimensionName>;

/** The keys of a messages dimension. */
export const MESSAGE_KEYS = { delivered: 'delivered', opened: 'opened' } as const;

/** Every declared dimension with its name, in the table's order. */
export const DECLARED_EVENT_DIMENSIONS = Object.entries(EVENT_DIMENSION_TABLE) as [
  EventDimensionName,
  EventDimension,
][];

/** The declared dimensions counted from events of each type. */
export const DIMENSIONS_OF_TYPE = new Map<
  string,
  [EventDimensionName, EventDimension & { source: 'events' }][]
>();
for (const [name, d] of DECLARED_EVENT_DIMENSIONS)
  if (d.source === 'events')
    DIMENSIONS_OF_TYPE.set(d.type, [...(DIMENSIONS_OF_TYPE.get(d.type) ?? []), [name, d]]);

/** The declaration of a dimension counted from events. */
export function countedDimension(name: EventDimensionName): EventDimension & { source: 'events' } {
  const d: EventDimension = EVENT_DIMENSION_TABLE[name];
  if (d.source !== 'events') throw new Error(`${name} is not counted from events`);
  return d;
}
