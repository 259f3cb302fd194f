import {
  COUNTED_EVENTS,
  CountedEventType,
  DECLARED_EVENT_DIMENSIONS,
  DIMENSIONS_OF_TYPE,
  MESSAGE_KEYS,
} from '../events/event-definitions';
import type { TrackedEvent } from '../events/event-types';
import { SESSION_ROLLUP_DIMENSIONS } from '../events/session-definitions';
import { sessionContributions, SessionState } from '../events/session-state';
import { bucketStart, EVENT_GRAINS, SESSION_GRAINS } from '../time/buckets';

/** A contact message that became delivered and/or opened. */
export interface MessageChange {
  sentAt: number;
  delivered: boolean;
  opened: boolean;
}

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

// Aggregation is done per bucket of the finest grain first (each fact or session falls in one),
// then each coarser grain is summed from the rows of the grain below it (each grain is a multiple
// of the next): far fewer map operations than one per fact and grain.
class FinestSums<C> {
  readonly buckets = new Map<number, Map<string, Sum<C>>>();

  constructor(
    readonly grains: readonly number[],
    readonly empty: () => C,
  ) {}

  /** The counters of a dimension and key in the finest bucket that holds `at`. */
  at(at: number, dimension: string, key: string): C {
    const start = bucketStart(at, this.grains[this.grains.length - 1]);
    let sums = this.buckets.get(start);
    if (!sums) this.buckets.set(start, (sums = new Map()));
    const id = `${dimension}\u0000${key}`;
    let entry = sums.get(id);
    if (!entry) sums.set(id, (entry = { id, dimension, key, counts: this.empty() }));
    return entry.counts;
  }
}

/** A dimension and key's counters in one bucket; `id` names the pair. */
interface Sum<C> {
  id: string;
  dimension: string;
  key: string;
  counts: C;
}

/** The sums at every grain, coarsest first. */
function foldGrains<C>(finest: FinestSums<C>, merge: (into: C, from: C) => void): RollupRow<C>[] {
  const { grains } = finest;
  let below = finest.buckets;
  const levels: RollupRow<C>[][] = [];
  for (let g = grains.length - 1; g >= 0; g--) {
    const grain = grains[g];
    const level: RollupRow<C>[] = [];
    if (g === grains.length - 1) {
      // The finest grain's rows are the sums themselves.
      for (const [bucket, sums] of below)
        for (const sum of sums.values())
          level.push({ dimension: sum.dimension, grain, bucket, key: sum.key, counts: sum.counts });
    } else {
      const buckets = new Map<number, Map<string, Sum<C>>>();
      for (const [start, sums] of below) {
        const bucket = bucketStart(start, grain);
        let inBucket = buckets.get(bucket);
        if (!inBucket) buckets.set(bucket, (inBucket = new Map()));
        for (const sum of sums.values()) {
          let into = inBucket.get(sum.id);
          if (!into) {
            into = { id: sum.id, dimension: sum.dimension, key: sum.key, counts: finest.empty() };
            inBucket.set(sum.id, into);
            level.push({ dimension: sum.dimension, grain, bucket, key: sum.key, counts: into.counts });
          }
          merge(into.counts, sum.counts);
        }
      }
      below = buckets;
    }
    levels.push(level);
  }
  return levels.reverse().flat();
}

/** Newer label wins; equal times keep the greater label so the result does not depend on order. */
export function laterLabel(a: EventCounts, label: string | null, labelAt: number | null): void {
  if (label === null || labelAt === null) return;
  if (a.labelAt === null || labelAt > a.labelAt || (labelAt === a.labelAt && label > (a.label as string))) {
    a.label = label;
    a.labelAt = labelAt;
  }
}

const emptyEvents = (): EventCounts => ({ events: 0, timed: 0, totalMs: 0, label: null, labelAt: null });
/** Session counters at zero (a rollup row's, a segment row's totals). */
export const emptySessions = (): SessionCounts => ({
  sessions: 0,
  conversions: 0,
  completions: 0,
  completionMs: 0,
});

function mergeEvents(into: EventCounts, from: EventCounts): void {
  into.events += from.events;
  into.timed += from.timed;
  into.totalMs += from.totalMs;
  laterLabel(into, from.label, from.labelAt);
}

/** Adds the session counters `from` to `into`. */
export function mergeSessions(into: SessionCounts, from: SessionCounts): void {
  into.sessions += from.sessions;
  into.conversions += from.conversions;
  into.completions += from.completions;
  into.completionMs += from.completionMs;
}

/**
 * Rollup increments of new events attributed to their own time (page views, clicks), at every
 * grain: what each declared dimension of the event's type (events/event-definitions.ts) counts.
 */
export function eventRollupDeltas(events: TrackedEvent[]): RollupRow<EventCounts>[] {
  const finest = new FinestSums(EVENT_GRAINS, emptyEvents);
  for (const event of events) {
    const dimensions = DIMENSIONS_OF_TYPE.get(event.type);
    if (!dimensions) continue;
    const columns = COUNTED_EVENTS[event.type as CountedEventType](event.fields);
    for (const [name, d] of dimensions) {
      const sum = finest.at(event.occurredAt, name, d.keyed ? columns.key : '');
      sum.events += 1;
      if (d.timed && columns.timeOnPageMs !== undefined) {
        sum.timed += 1;
        sum.totalMs += columns.timeOnPageMs;
      }
      if (d.labelled && columns.label !== undefined) laterLabel(sum, columns.label, event.occurredAt);
    }
  }
  return foldGrains(finest, mergeEvents);
}

// The dimensions that count messages (one today).
const MESSAGE_DIMENSIONS = DECLARED_EVENT_DIMENSIONS.filter(([, d]) => d.source === 'messages').map(
  ([name]) => name,
);

/** Rollup increments of messages newly delivered / opened, at their send time. */
export function messageRollupDeltas(changes: MessageChange[]): RollupRow<EventCounts>[] {
  const finest = new FinestSums(EVENT_GRAINS, emptyEvents);
  for (const c of changes)
    for (const name of MESSAGE_DIMENSIONS) {
      if (c.delivered) finest.at(c.sentAt, name, MESSAGE_KEYS.delivered).events += 1;
      if (c.opened) finest.at(c.sentAt, name, MESSAGE_KEYS.opened).events += 1;
    }
  return foldGrains(finest, mergeEvents);
}

/**
 * Rollup changes of sessions that changed: what each contributes now minus what it contributed
 * before, at its start time, at ingestion's grains, in the dimensions the session rollups hold
 * (SESSION_ROLLUP_DIMENSIONS). A session whose start moved (an earlier session_start arrived) leaves
 * its old buckets and enters the new ones.
 */
export function sessionRollupDeltas(
  changes: { before: SessionState; after: SessionState }[],
): RollupRow<SessionCounts>[] {
  const finest = new FinestSums(SESSION_GRAINS, emptySessions);
  const apply = (state: SessionState, sign: 1 | -1) => {
    if (state.startedAt === null) return;
    for (const c of sessionContributions(state, SESSION_ROLLUP_DIMENSIONS)) {
      const sum = finest.at(state.startedAt, c.dimension, c.key);
      sum.sessions += sign * c.sessions;
      sum.conversions += sign * c.conversions;
      sum.completions += sign * c.completions;
      sum.completionMs += sign * c.completionMs;
    }
  };
  for (const { before, after } of changes) {
    apply(before, -1);
    apply(after, 1);
  }
  return foldGrains(finest, mergeSessions).filter(
    (r) => r.counts.sessions || r.counts.conversions || r.counts.completions || r.counts.completionMs,
  );
}
