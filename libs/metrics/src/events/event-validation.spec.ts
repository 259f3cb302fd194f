import { createHash } from 'node:crypto';
import { ValidationError } from '@app/core';
import { parseEventBatch } from './event-validation';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const base = { sessionId: 's1', occurredAt: '2026-05-01T10:00:00Z' };

describe(parseEventBatch.name, () => {
  it('returns canonical events whose id depends on the content only', () => {
    const [a, b, c] = parseEventBatch(
      {
        events: [
          {
            ...base,
            type: 'session_start',
            device: 'mobile',
            visitorId: 'v',
            utm: { medium: 'cpc', source: 'fb' },
          },
          {
            type: 'session_start',
            visitorId: 'v',
            sessionId: 's1',
            occurredAt: '2026-05-01T12:00:00+02:00',
            utm: { source: 'fb', medium: 'cpc' },
            device: 'mobile',
          },
          { ...base, type: 'session_start', device: 'mobile', visitorId: 'v', utm: { source: 'fb' } },
        ],
      },
      NOW,
    );
    expect(a.fields).toEqual({ visitorId: 'v', device: 'mobile', utm: { source: 'fb', medium: 'cpc' } });
    expect(a.occurredAt).toBe(Date.parse('2026-05-01T10:00:00Z'));
    expect(b.eventId).toBe(a.eventId);
    expect(c.eventId).not.toBe(a.eventId);
    expect(a.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('accepts every event type with its members', () => {
    const events = parseEventBatch(
      {
        events: [
          { ...base, type: 'page_view', pageSlug: 'start', timeOnPageMs: 0 },
          { ...base, type: 'button_click', pageSlug: 'start', buttonId: 'b1', buttonLabel: 'Go' },
          { ...base, type: 'answer', questionId: 'question_3', questionTitle: 'Why?', answers: ['A', 'B'] },
          { ...base, type: 'conversion', contactId: '6F9619FF-8B86-D011-B42D-00C04FC964FF' },
          { ...base, type: 'conversion' },
          { ...base, type: 'completion' },
          { ...base, type: 'message_delivered', messageId: '6f9619ff-8b86-d011-b42d-00c04fc964ff' },
          { ...base, type: 'message_opened', messageId: '6f9619ff-8b86-d011-b42d-00c04fc964ff' },
        ],
      },
      NOW,
    );
    expect(events.map((e) => e.type)).toEqual([
      'page_view',
      'button_click',
      'answer',
      'conversion',
      'conversion',
      'completion',
      'message_delivered',
      'message_opened',
    ]);
    expect(events[3].fields).toEqual({ contactId: '6f9619ff-8b86-d011-b42d-00c04fc964ff' });
  });

  it('lists at most 20 problems', () => {
    const error = thrownBy(() =>
      parseEventBatch({ events: Array.from({ length: 30 }, () => ({ ...base, type: 'page_view' })) }, NOW),
    );
    expect(error).toBeInstanceOf(ValidationError);
    const details = (error as ValidationError).details as string[];
    expect(details).toHaveLength(21);
    expect(details[0]).toBe('events[0].pageSlug is required');
    expect(details[20]).toBe('... and 10 more problems');
  });

  it('refuses answers longer than 500 characters together', () => {
    const answers = Array.from({ length: 3 }, () => 'x'.repeat(200));
    expect(() =>
      parseEventBatch(
        { events: [{ ...base, type: 'answer', questionId: 'question_1', questionTitle: 'Q', answers }] },
        NOW,
      ),
    ).toThrow('events[0].answers must be 1 to 20 strings of 1 to 200 characters, 500 characters in total');
  });

  it.each([
    ['a NUL character', 'a\u0000b'],
    ['a lone high surrogate', 'a\ud83d'],
    ['a lone low surrogate', '\ude00b'],
  ])('refuses text with %s, which PostgreSQL cannot store', (_, value) => {
    const read = (event: Record<string, unknown>) => () =>
      parseEventBatch({ events: [{ ...base, ...event }] }, NOW);
    expect(read({ type: 'page_view', pageSlug: 'start', sessionId: value })).toThrow(
      'events[0].sessionId must not contain NUL characters or unpaired surrogates',
    );
    expect(
      read({ type: 'answer', questionId: 'question_1', questionTitle: 'Q', answers: ['ok', value] }),
    ).toThrow('events[0].answers must not contain NUL characters or unpaired surrogates');
  });

  it('accepts text with characters outside the Basic Multilingual Plane', () => {
    const [event] = parseEventBatch(
      { events: [{ ...base, type: 'button_click', pageSlug: 'p', buttonId: 'b', buttonLabel: 'Go 🚀' }] },
      NOW,
    );
    expect(event.fields).toEqual({ pageSlug: 'p', buttonId: 'b', buttonLabel: 'Go 🚀' });
  });

  it('derives the id from the JSON of [type, sessionId, occurredAt, fields], so stored ids stay valid', () => {
    const [event] = parseEventBatch(
      { events: [{ ...base, type: 'page_view', pageSlug: 'start', timeOnPageMs: 5 }] },
      NOW,
    );
    const hex = createHash('sha256')
      .update(
        JSON.stringify([
          'page_view',
          's1',
          Date.parse(base.occurredAt),
          { pageSlug: 'start', timeOnPageMs: 5 },
        ]),
      )
      .digest('hex');
    expect(event.eventId.replaceAll('-', '')).toBe(hex.slice(0, 32));
    expect(event.fieldsJson).toBe('{"pageSlug":"start","timeOnPageMs":5}');
  });
});

/** The error `run` throws (failing the test when it throws none), so assertions need no catch block. */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error to be thrown');
}
