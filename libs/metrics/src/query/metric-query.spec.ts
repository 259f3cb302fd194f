import { ValidationError } from '@app/core';
import { parseMetricQuery } from './metric-query';

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
        offset: -120,
      },
      abTest: undefined,
    });
    expect(
      parseMetricQuery(
        { from: '2026-02-01T00:00:00Z', to: '2026-02-02T00:00:00Z', offset: '+330' },
        { abTest: true },
      ).window.offset,
    ).toBe(330);
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
