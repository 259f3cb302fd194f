import type { Device } from '../events/event-types';
import { trackedEvent } from '../events/event-validation';
import { applyEvents, emptySession } from '../events/session-state';
import { segmentChanges } from './segment-changes';
import { coarserRows, finestRows, SegmentRow, withStoredEvents } from './segment-rows';

const T = Date.parse('2026-05-10T10:00:00Z');
const start = (sessionId: string, at: number, device: Device) =>
  trackedEvent('session_start', sessionId, at, { visitorId: 'v', device, utm: { source: 'google' } });
const view = (sessionId: string, at: number, pageSlug: string, timeOnPageMs?: number) =>
  trackedEvent('page_view', sessionId, at, { pageSlug, ...(timeOnPageMs ? { timeOnPageMs } : {}) });

describe(finestRows.name, () => {
  it('packs a segment’s session totals, pages, answers, page views and clicks of a minute in one row, and sums them above', () => {
    const a = applyEvents(emptySession('a'), [
      start('a', T + 1_000, 'mobile'),
      view('a', T + 2_000, 'start'),
      trackedEvent('answer', 'a', T + 3_000, {
        questionId: 'q1',
        questionTitle: 'Q',
        answers: ['x', 'y', 'x'],
      }),
    ]);
    const b = applyEvents(emptySession('b'), [
      start('b', T + 61_000, 'mobile'),
      view('b', T + 62_000, 'start'),
      trackedEvent('conversion', 'b', T + 70_000, {}),
      trackedEvent('completion', 'b', T + 91_000, {}),
    ]);
    const rows = finestRows(
      [a, b],
      [
        {
          bucket: T,
          attributes: ['mobile', 'google', null, null, null],
          type: 'page_view',
          key: 'start',
          events: 2,
          timed: 1,
          totalMs: 500,
          label: null,
          labelAt: null,
        },
        {
          bucket: T,
          attributes: ['mobile', 'google', null, null, null],
          type: 'button_click',
          key: 'cta',
          events: 1,
          timed: 0,
          totalMs: 0,
          label: 'Go',
          labelAt: T + 5_000,
        },
      ],
    );
    const first = rows.find((r) => r.bucket === T);
    expect(rows).toHaveLength(2);
    expect(first).toMatchObject({
      grain: 60,
      segment: '6:mobile6:google---',
      totals: { sessions: 1, conversions: 0, completions: 0, completionMs: 0 },
      sessions: { page: { start: 1 }, 'answer:q1': { x: 1, y: 1 }, 'answer-group:q1': { 'x; y': 1 } },
      events: {
        activity: { '': [2, 0, 0, null, null] },
        page: { start: [2, 1, 500, null, null] },
        button: { cta: [1, 0, 0, 'Go', T + 5_000] },
      },
    });
    expect(rows.map((r) => [r.grain, r.bucket])).toEqual([
      [60, T],
      [60, T + 60_000],
    ]);
    const [hour] = coarserRows(rows, 3_600);
    expect(hour).toMatchObject({
      grain: 3_600,
      bucket: T,
      totals: { sessions: 2, conversions: 1, completions: 1, completionMs: 30_000 },
      sessions: { page: { start: 2 } },
    });
  });
});

describe(withStoredEvents.name, () => {
  it('takes the stored events of minutes whose raw events are gone and keeps those computed elsewhere', () => {
    const row = (bucket: number, events: number, page?: number, started = 0): SegmentRow => ({
      grain: 60,
      bucket,
      segment: '6:mobile----',
      attributes: ['mobile', null, null, null, null],
      totals: { sessions: started, conversions: 0, completions: 0, completionMs: 0 },
      sessions: page === undefined ? {} : { page: { start: page } },
      events: events ? { page: { start: [events, 0, 0, null, null] } } : {},
    });
    // T: raw events dropped, its sessions counted; T + 1 min: computed from raw events; T + 2 min:
    // a session that viewed no page, its raw events dropped, still counts.
    const rows = withStoredEvents(
      [row(T, 0, 3, 3), row(T + 60_000, 4), row(T + 120_000, 0, undefined, 1)],
      [row(T, 7)],
    );
    expect(rows.map((r) => [r.bucket, r.totals.sessions, r.sessions, r.events.page?.start[0]])).toEqual([
      [T, 3, { page: { start: 3 } }, 7],
      [T + 60_000, 0, {}, 4],
      [T + 120_000, 1, {}, undefined],
    ]);
  });
});

describe(segmentChanges.name, () => {
  it('names the minutes of counted events and of changed starts, and the sessions that changed segment', () => {
    const before = applyEvents(emptySession('s'), [view('s', T + 5_000, 'start')]);
    const after = applyEvents(before, [start('s', T + 90_000, 'tablet')]);
    const same = applyEvents(emptySession('t'), [start('t', T, 'mobile')]);
    const changes = segmentChanges(
      [view('u', T + 125_000, 'start'), start('s', T + 90_000, 'tablet')],
      [
        { before, after },
        { before: same, after: applyEvents(same, [view('t', T + 10_000, 'start')]) },
      ],
    );
    expect(changes.minutes.sort()).toEqual([T, T + 60_000, T + 120_000]);
    expect(changes.sessions).toEqual(['s']);
  });
});
