import { trackedEvent } from '../events/event-validation';
import type { EventFields, EventType, TrackedEvent } from '../events/event-types';
import { applyEvents, emptySession } from '../events/session-state';
import { eventRollupDeltas, messageRollupDeltas, sessionRollupDeltas } from './rollup-deltas';

const event = (type: EventType, occurredAt: string, fields: EventFields = {}): TrackedEvent =>
  trackedEvent(type, 's1', Date.parse(occurredAt), fields);
const iso = (ms: number) => new Date(ms).toISOString();

describe(eventRollupDeltas.name, () => {
  it('adds page views and clicks to a bucket of every grain, keeping the latest label', () => {
    const rows = eventRollupDeltas([
      event('page_view', '2026-01-01T10:17:30Z', { pageSlug: 'start', timeOnPageMs: 1500 }),
      event('page_view', '2026-01-01T10:17:40Z', { pageSlug: 'start' }),
      event('button_click', '2026-01-01T10:18:00Z', { pageSlug: 'start', buttonId: 'b', buttonLabel: 'Go' }),
      event('button_click', '2026-01-01T10:17:00Z', { pageSlug: 'start', buttonId: 'b', buttonLabel: 'Old' }),
      event('session_start', '2026-01-01T10:17:00Z', { visitorId: 'v', device: 'mobile' }),
    ]);
    const byKey = Object.fromEntries(
      rows.map((r) => [`${r.dimension}/${r.key}/${r.grain}/${iso(r.bucket)}`, r.counts]),
    );
    expect(Object.keys(byKey).sort()).toEqual(
      [
        'activity//10/2026-01-01T10:17:30.000Z',
        'activity//10/2026-01-01T10:17:40.000Z',
        'activity//60/2026-01-01T10:17:00.000Z',
        'activity//900/2026-01-01T10:15:00.000Z',
        'activity//3600/2026-01-01T10:00:00.000Z',
        'activity//86400/2026-01-01T00:00:00.000Z',
        'page/start/10/2026-01-01T10:17:30.000Z',
        'page/start/10/2026-01-01T10:17:40.000Z',
        'page/start/60/2026-01-01T10:17:00.000Z',
        'page/start/900/2026-01-01T10:15:00.000Z',
        'page/start/3600/2026-01-01T10:00:00.000Z',
        'page/start/86400/2026-01-01T00:00:00.000Z',
        'button/b/10/2026-01-01T10:17:00.000Z',
        'button/b/10/2026-01-01T10:18:00.000Z',
        'button/b/60/2026-01-01T10:17:00.000Z',
        'button/b/60/2026-01-01T10:18:00.000Z',
        'button/b/900/2026-01-01T10:15:00.000Z',
        'button/b/3600/2026-01-01T10:00:00.000Z',
        'button/b/86400/2026-01-01T00:00:00.000Z',
      ].sort(),
    );
    expect(byKey['page/start/3600/2026-01-01T10:00:00.000Z']).toEqual({
      events: 2,
      timed: 1,
      totalMs: 1500,
      label: null,
      labelAt: null,
    });
    expect(byKey['button/b/900/2026-01-01T10:15:00.000Z']).toEqual({
      events: 2,
      timed: 0,
      totalMs: 0,
      label: 'Go',
      labelAt: Date.parse('2026-01-01T10:18:00Z'),
    });
  });
});

describe(messageRollupDeltas.name, () => {
  it('counts deliveries and openings at the send time, in the day bucket of every grain', () => {
    const sentAt = Date.parse('2026-01-01T10:17:35Z');
    const rows = messageRollupDeltas([
      { sentAt, delivered: true, opened: false },
      { sentAt: sentAt + 1000, delivered: true, opened: true },
      { sentAt, delivered: false, opened: true },
    ]);
    const day = rows
      .filter((r) => r.grain === 86400)
      .map((r) => [r.dimension, r.key, iso(r.bucket), r.counts.events]);
    expect(day).toEqual([
      ['message', 'delivered', '2026-01-01T00:00:00.000Z', 2],
      ['message', 'opened', '2026-01-01T00:00:00.000Z', 2],
    ]);
    expect(rows.filter((r) => r.grain === 10).map((r) => [r.key, iso(r.bucket), r.counts.events])).toEqual([
      ['delivered', '2026-01-01T10:17:30.000Z', 2],
      ['opened', '2026-01-01T10:17:30.000Z', 2],
    ]);
  });
});

describe(sessionRollupDeltas.name, () => {
  const started = applyEvents(emptySession('s1'), [
    event('session_start', '2026-01-01T23:59:00Z', { visitorId: 'v', device: 'mobile' }),
  ]);

  it('writes nothing when a session did not change what it contributes', () => {
    expect(sessionRollupDeltas([{ before: started, after: started }])).toEqual([]);
  });

  it('adds what a new fact contributes at the session start', () => {
    const after = applyEvents(started, [event('conversion', '2026-01-02T00:10:00Z')]);
    const rows = sessionRollupDeltas([{ before: started, after }]);
    const conversion = { sessions: 0, conversions: 1, completions: 0, completionMs: 0 };
    // The totals and the session's device, which count conversions too; not its segment, whose
    // totals the fold sums into the segment rollups.
    expect(rows.map((r) => [r.dimension, r.grain, iso(r.bucket), r.counts])).toEqual(
      [
        [86400, '2026-01-01T00:00:00.000Z'],
        [3600, '2026-01-01T23:00:00.000Z'],
        [900, '2026-01-01T23:45:00.000Z'],
        [60, '2026-01-01T23:59:00.000Z'],
      ].flatMap(([grain, bucket]) =>
        ['all', 'device'].map((dimension) => [dimension, grain, bucket, conversion]),
      ),
    );
  });

  it('moves a session whose start moved to another day', () => {
    const after = applyEvents(started, [
      event('session_start', '2026-01-02T00:00:00Z', { visitorId: 'v', device: 'mobile' }),
    ]);
    expect(after).toEqual(started);
    const earlier = applyEvents(started, [
      event('session_start', '2025-12-31T12:00:00Z', { visitorId: 'v', device: 'tablet' }),
    ]);
    const rows = sessionRollupDeltas([{ before: started, after: earlier }]);
    const at = (grain: number) =>
      rows
        .filter((r) => r.grain === grain)
        .map((r) => [r.dimension, r.key, iso(r.bucket), r.counts.sessions]);
    expect(at(86400)).toEqual([
      ['all', '', '2026-01-01T00:00:00.000Z', -1],
      ['device', 'mobile', '2026-01-01T00:00:00.000Z', -1],
      ['all', '', '2025-12-31T00:00:00.000Z', 1],
      ['device', 'tablet', '2025-12-31T00:00:00.000Z', 1],
    ]);
    expect(at(60)).toEqual([
      ['all', '', '2026-01-01T23:59:00.000Z', -1],
      ['device', 'mobile', '2026-01-01T23:59:00.000Z', -1],
      ['all', '', '2025-12-31T12:00:00.000Z', 1],
      ['device', 'tablet', '2025-12-31T12:00:00.000Z', 1],
    ]);
  });
});
