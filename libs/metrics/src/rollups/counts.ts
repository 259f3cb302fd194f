/** What a dimension counted from events holds per key: events, timed page views, their time, the latest label. */
export interface EventCounts {
  events: number;
  timed: number;
  totalMs: number;
  label: string | null;
  labelAt: number | null;
}

/** What a session dimension holds per key: sessions, their conversions, completions and time to completion. */
export interface SessionCounts {
  sessions: number;
  conversions: number;
  completions: number;
  completionMs: number;
}

/** Newer label wins; equal times keep the greater label so the result does not depend on order. */
export function laterLabel(a: EventCounts, label: string | null, labelAt: number | null): void {
  if (label === null || labelAt === null) return;
  if (a.labelAt === null || labelAt > a.labelAt || (labelAt === a.labelAt && label > (a.label as string))) {
    a.label = label;
    a.labelAt = labelAt;
  }
}

/** Session counters at zero. */
export const emptySessions = (): SessionCounts => ({
  sessions: 0,
  conversions: 0,
  completions: 0,
  completionMs: 0,
});

/** Adds the session counters `from` to `into`, and returns `into`. */
export function addSessions(into: SessionCounts, from: SessionCounts): SessionCounts {
  into.sessions += from.sessions;
  into.conversions += from.conversions;
  into.completions += from.completions;
  into.completionMs += from.completionMs;
  return into;
}
