import { trackedEvent } from './event-validation';
import type { EventFields, EventType, TrackedEvent } from './event-types';
import { applyEvents, emptySession, sameSession, sessionContributions } from './session-state';

const at = (iso: string) => Date.parse(iso);
const event = (type: EventType, occurredAt: string, fields: EventFields = {}): TrackedEvent =>
  trackedEvent(type, 's1', at(occurredAt), fields);
const start = (occurredAt: string, device = 'mobile', extra = {}) =>
  event('session_start', occurredAt, { visitorId: 'v', device, ...extra } as EventFields);

describe(applyEvents.name, () => {
  const events = [
    event('page_view', '2026-01-01T10:01:00Z', { pageSlug: 'details' }),
    start('2026-01-01T10:00:00Z', 'desktop', { utm: { source: 'google' }, abVariant: 'variant' }),
    event('page_view', '2026-01-01T10:00:10Z', { pageSlug: 'start' }),
    event('page_view', '2026-01-01T10:02:00Z', { pageSlug: 'start' }),
    event('answer', '2026-01-01T10:03:00Z', {
      questionId: 'question_1',
      questionTitle: 'Q',
      answers: ['A', 'B'],
    }),
    event('answer', '2026-01-01T10:04:00Z', { questionId: 'question_1', questionTitle: 'Q', answers: ['B'] }),
    event('completion', '2026-01-01T10:20:00Z'),
    event('completion', '2026-01-01T10:10:00Z'),
    event('conversion', '2026-01-01T10:09:00Z'),
  ];

  it('gives the same session whatever order the events arrive in', () => {
    const forward = applyEvents(emptySession('s1'), events);
    const backward = [...events].reverse().reduce((s, e) => applyEvents(s, [e]), emptySession('s1'));
    expect(sameSession(forward, backward)).toBe(true);
    expect(forward).toMatchObject({
      startedAt: at('2026-01-01T10:00:00Z'),
      device: 'desktop',
      utmSource: 'google',
      abVariant: 'variant',
      pages: ['details', 'start'],
      convertedAt: at('2026-01-01T10:09:00Z'),
      completedAt: at('2026-01-01T10:10:00Z'),
    });
    expect(forward.answers.question_1.answers).toEqual(['B']);
  });

  it('takes the attributes of the earliest session_start', () => {
    const s = applyEvents(emptySession('s1'), [
      start('2026-01-01T10:00:00Z', 'tablet'),
      start('2026-01-01T09:59:00Z', 'other'),
    ]);
    expect(s).toMatchObject({ startedAt: at('2026-01-01T09:59:00Z'), device: 'other' });
  });
});

describe(sessionContributions.name, () => {
  it('counts nothing while the session has not started', () => {
    expect(
      sessionContributions(
        applyEvents(emptySession('s1'), [event('page_view', '2026-01-01T10:00:00Z', { pageSlug: 'a' })]),
      ),
    ).toEqual([]);
  });

  it('contributes one session per dimension, each page once, the latest answer and the completion time', () => {
    const s = applyEvents(emptySession('s1'), [
      start('2026-01-01T10:00:00Z', 'desktop', { utm: { source: 'google' }, abVariant: 'original' }),
      event('page_view', '2026-01-01T10:00:10Z', { pageSlug: 'start' }),
      event('page_view', '2026-01-01T10:00:20Z', { pageSlug: 'start' }),
      event('answer', '2026-01-01T10:03:00Z', {
        questionId: 'question_2',
        questionTitle: 'Q',
        answers: ['A', 'B', 'A'],
      }),
      event('completion', '2026-01-01T10:01:30Z'),
    ]);
    const one = { sessions: 1, conversions: 0, completions: 0, completionMs: 0 };
    // The segment counts the completion too.
    const completed = { sessions: 1, conversions: 0, completions: 1, completionMs: 90_000 };
    expect(sessionContributions(s)).toEqual([
      { dimension: 'page', key: 'start', ...one },
      { dimension: 'page:original', key: 'start', ...one },
      { dimension: 'answer:question_2', key: 'A', ...one },
      { dimension: 'answer:question_2', key: 'B', ...one },
      { dimension: 'answer-group:question_2', key: 'A; B', ...one },
      // Device, source, variant, medium, campaign: the order of FILTER_NAMES.
      { dimension: 'segment', key: '7:desktop6:google8:original--', ...completed },
    ]);
  });
});
