import { ValidationError } from '@app/core';
import { FixedOffsetZone } from '../time/time-zone';
import { parseMetricQuery, previousWindow } from './metric-query';

const errorOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return { message: (error as ValidationError).message, details: (error as ValidationError).details };
  }
  throw new Error('expected a ValidationError');
};

describe(parseMetricQuery.name, () => {
  it('reads from, to and offset', () => {
    expect(
      parseMetricQuery({ from: '2026-02-01', to: '2026-02-01', offset: '-120' }, { abTest: false }),
    ).toEqual({
      window: {
        from: Date.parse('2026-01-31T22:00:00Z'),
        to: Date.parse('2026-02-01T21:59:59.999Z'),
        zone: new FixedOffsetZone(-120),
      },
      abTest: undefined,
      filter: {},
      breakdown: undefined,
      compare: undefined,
    });
    expect(
      parseMetricQuery(
        { from: '2026-02-01T00:00:00Z', to: '2026-02-02T00:00:00Z', offset: '+330' },
        { abTest: true },
      ).window.zone,
    ).toEqual(new FixedOffsetZone(330));
  });

  it('reads local days in a named time zone, 23 or 25 hours long when clocks change', () => {
    const day = (date: string, timezone: string) => {
      const { window } = parseMetricQuery({ from: date, to: date, timezone }, { abTest: false });
      return [new Date(window.from).toISOString(), (window.to + 1 - window.from) / 3_600_000];
    };
    expect(day('2026-03-29', 'Europe/Berlin')).toEqual(['2026-03-28T23:00:00.000Z', 23]);
    expect(day('2026-10-25', 'Europe/Berlin')).toEqual(['2026-10-24T22:00:00.000Z', 25]);
    expect(day('2026-03-08', 'America/New_York')).toEqual(['2026-03-08T05:00:00.000Z', 23]);
    expect(day('2026-11-01', 'America/New_York')).toEqual(['2026-11-01T04:00:00.000Z', 25]);
    expect(day('2026-07-01', 'America/New_York')).toEqual(['2026-07-01T04:00:00.000Z', 24]);
    const { window } = parseMetricQuery(
      { from: '2026-10-25T02:30', to: '2026-10-25T12:00:00Z', timezone: 'Europe/Berlin' },
      { abTest: false },
    );
    expect(new Date(window.from).toISOString()).toBe('2026-10-25T00:30:00.000Z');
  });

  it('refuses offset and timezone together, and unknown zones', () => {
    const q = { from: '2026-02-01', to: '2026-02-02' };
    expect(
      errorOf(() => parseMetricQuery({ ...q, offset: '-60', timezone: 'Europe/Berlin' }, { abTest: false })),
    ).toEqual({
      message: 'offset and timezone are alternatives: give one of them',
      details: ['offset and timezone are alternatives: give one of them'],
    });
    for (const timezone of ['Europe/Atlantis', '', '+01:00', 60])
      expect(errorOf(() => parseMetricQuery({ ...q, timezone }, { abTest: false })).message).toBe(
        'timezone must be an IANA time zone name (e.g. Europe/Berlin)',
      );
  });

  it('accepts abTest only where supported', () => {
    const q = { from: '2026-02-01', to: '2026-02-02' };
    expect(parseMetricQuery({ ...q, abTest: 'variant' }, { abTest: true }).abTest).toBe('variant');
    expect(errorOf(() => parseMetricQuery({ ...q, abTest: 'all' }, { abTest: false })).message).toBe(
      'abTest is only supported by chart_page_to_page_conversion_rate',
    );
    expect(errorOf(() => parseMetricQuery({ ...q, abTest: 'b' }, { abTest: true })).message).toBe(
      'abTest must be one of all, original, variant',
    );
  });

  it('lists every problem', () => {
    expect(errorOf(() => parseMetricQuery({ to: 'yesterday', offset: '2h' }, { abTest: false }))).toEqual({
      message:
        'offset must be a whole number of minutes from -840 to 840 (JavaScript getTimezoneOffset: -120 is UTC+2)',
      details: [
        'offset must be a whole number of minutes from -840 to 840 (JavaScript getTimezoneOffset: -120 is UTC+2)',
        'from is required',
        'to must be an ISO 8601 date or date-time (e.g. 2025-01-01T00:00:00Z)',
      ],
    });
  });

  it.each([
    [{ from: '2026-02-02', to: '2026-02-01' }, 'from must be before to'],
    [{ from: '2026-02-01T00:00:00Z', to: '2026-02-01T00:00:00Z' }, 'from must be before to'],
    [{ from: '2000-01-01', to: '2026-02-01' }, 'the period must not exceed 3660 days'],
    [{ from: '2026-02-01', to: '2026-02-02', offset: '900' }, 'offset must be a whole number of minutes'],
    [{ from: '2026-02-01', to: '2026-02-02', offset: '1.5' }, 'offset must be a whole number of minutes'],
    [{ from: ['2026-02-01', '2026-02-02'], to: '2026-02-03' }, 'from must be an ISO 8601'],
  ])('refuses %j', (query, message) => {
    expect(errorOf(() => parseMetricQuery(query, { abTest: false })).message).toContain(message);
  });
});

describe(previousWindow.name, () => {
  const support = { abTest: false };
  it('is the local day before a day, 23 hours long before the spring change', () => {
    const { window } = parseMetricQuery(
      { from: '2026-03-30', to: '2026-03-30', timezone: 'Europe/Berlin' },
      support,
    );
    const previous = previousWindow(window);
    expect(new Date(previous.from).toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(new Date(previous.to).toISOString()).toBe('2026-03-29T21:59:59.999Z');
  });

  it('is as long as the window at a fixed offset', () => {
    const { window } = parseMetricQuery(
      { from: '2026-02-01T10:00:00Z', to: '2026-02-01T10:29:59.999Z', offset: '-330' },
      support,
    );
    expect(previousWindow(window)).toMatchObject({
      from: Date.parse('2026-02-01T09:30:00Z'),
      to: Date.parse('2026-02-01T09:59:59.999Z'),
    });
  });
});

describe('parseMetricQuery filters', () => {
  const q = { from: '2026-02-01', to: '2026-02-02' };
  const sessions = { abTest: false, figure: 'kpi_total_sessions', sessions: true, breakdown: true };
  it('reads one value or a repeated parameter', () => {
    expect(parseMetricQuery({ ...q, device: 'mobile', utmSource: ['a', 'b'] }, sessions).filter).toEqual({
      device: ['mobile'],
      utmSource: ['a', 'b'],
    });
  });

  it('refuses a filter where the figure counts no sessions, naming it', () => {
    expect(() =>
      parseMetricQuery({ ...q, utmMedium: 'cpc' }, { abTest: false, figure: 'kpi_messages_sent' }),
    ).toThrow('utmMedium is not supported by kpi_messages_sent: it does not count sessions');
  });

  it('refuses an unknown breakdown and a filter that is not text', () => {
    expect(() => parseMetricQuery({ ...q, breakdown: 'os' }, sessions)).toThrow('breakdown must be one of');
    expect(() => parseMetricQuery({ ...q, abVariant: [1] }, sessions)).toThrow('abVariant must be a string');
  });
});
