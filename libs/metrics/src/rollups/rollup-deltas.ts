import type { ButtonClickFields, PageViewFields, TrackedEvent } from '../events/event-types';
import { SessionContribution, sessionContributions, SessionState } from '../events/session-state';
import { bucketStart, GRAINS } from '../time/buckets';

export const EVENT_DIMENSIONS = {
  /** Page views per bucket (key ''), for activity by daytime. */
  activity: 'activity',
  /** Page views per page slug, with the views that reported a time on page and their sum. */
  page: 'page',
  /** Clicks per button id, with the latest label. */
  button: 'button',
} as const;

export interface EventCounts {
  events: number;
  timed: number;
  totalMs: number;
  label: string | null;
  labelAt: number | null;
}

export interface SessionCounts {
  sessions: number;
  conversions: number;
  completions: number;
  completionMs: number;
}

export interface RollupRow<C> {
  dimension: string;
  grain: number;
  /** Bucket start, epoch ms. */
  bucket: number;
  key: string;
  counts: C;
}

const rowKey = (dimension: string, grain: number, bucket: number, key: string) =>
  `${dimension}\u0000${grain}\u0000${bucket}\u0000${key}`;

/** Newer label wins; equal times keep the greater label so the result does not depend on order. */
export function laterLabel(a: EventCounts, label: string | null, labelAt: number | null): void {
  if (label === null || labelAt === null) return;
  if (a.labelAt === null || labelAt > a.labelAt || (labelAt === a.labelAt && label > (a.label as string))) {
    a.label = label;
    a.labelAt = labelAt;
  }
}

/** Rollup increments of new events attributed to their own time (page views, clicks), at every grain. */
export function eventRollupDeltas(events: TrackedEvent[]): RollupRow<EventCounts>[] {
  const rows = new Map<string, RollupRow<EventCounts>>();
  const add = (dimension: string, key: string, at: number, timedMs: number | undefined, label?: string) => {
    for (const grain of GRAINS) {
      const bucket = bucketStart(at, grain);
      const id = rowKey(dimension, grain, bucket, key);
      let row = rows.get(id);
      if (!row) {
        row = {
          dimension,
          grain,
          bucket,
          key,
          counts: { events: 0, timed: 0, totalMs: 0, label: null, labelAt: null },
        };
        rows.set(id, row);
      }
      row.counts.events += 1;
      if (timedMs !== undefined) {
        row.counts.timed += 1;
        row.counts.totalMs += timedMs;
      }
      laterLabel(row.counts, label ?? null, label === undefined ? null : at);
    }
  };
  for (const event of events) {
    if (event.type === 'page_view') {
      const f = event.fields as PageViewFields;
      add(EVENT_DIMENSIONS.activity, '', event.occurredAt, undefined);
      add(EVENT_DIMENSIONS.page, f.pageSlug, event.occurredAt, f.timeOnPageMs);
    } else if (event.type === 'button_click') {
      const f = event.fields as ButtonClickFields;
      add(EVENT_DIMENSIONS.button, f.buttonId, event.occurredAt, undefined, f.buttonLabel);
    }
  }
  return [...rows.values()];
}

/**
 * Rollup changes of sessions that changed: what each contributes now minus what it contributed
 * before, at its start time, at every grain. A session whose start moved (an earlier session_start
 * arrived) leaves its old buckets and enters the new ones.
 */
export function sessionRollupDeltas(
  changes: { before: SessionState; after: SessionState }[],
): RollupRow<SessionCounts>[] {
  const rows = new Map<string, RollupRow<SessionCounts>>();
  const apply = (contributions: SessionContribution[], at: number | null, sign: 1 | -1) => {
    if (at === null) return;
    for (const c of contributions) {
      for (const grain of GRAINS) {
        const bucket = bucketStart(at, grain);
        const id = rowKey(c.dimension, grain, bucket, c.key);
        let row = rows.get(id);
        if (!row) {
          row = {
            dimension: c.dimension,
            grain,
            bucket,
            key: c.key,
            counts: { sessions: 0, conversions: 0, completions: 0, completionMs: 0 },
          };
          rows.set(id, row);
        }
        row.counts.sessions += sign * c.sessions;
        row.counts.conversions += sign * c.conversions;
        row.counts.completions += sign * c.completions;
        row.counts.completionMs += sign * c.completionMs;
      }
    }
  };
  for (const { before, after } of changes) {
    apply(sessionContributions(before), before.startedAt, -1);
    apply(sessionContributions(after), after.startedAt, 1);
  }
  return [...rows.values()].filter(
    (r) => r.counts.sessions || r.counts.conversions || r.counts.completions || r.counts.completionMs,
  );
}
