import { parseIso8601 } from './iso-8601';

const utc = (iso: string) => Date.parse(iso);

describe(parseIso8601.name, () => {
  it('reads date-times with Z or a numeric zone', () => {
    expect(parseIso8601('2026-01-31T21:30:00Z')).toBe(utc('2026-01-31T21:30:00.000Z'));
    expect(parseIso8601('2026-02-01T00:30:00+03:00')).toBe(utc('2026-01-31T21:30:00.000Z'));
    expect(parseIso8601('2026-01-31T16:00:00-0530')).toBe(utc('2026-01-31T21:30:00.000Z'));
    expect(parseIso8601('2026-01-31T23:30+02')).toBe(utc('2026-01-31T21:30:00.000Z'));
    expect(parseIso8601('2026-01-31T21:30:00.123Z')).toBe(utc('2026-01-31T21:30:00.123Z'));
  });

  it('reads values without zone in the given getTimezoneOffset zone', () => {
    // -120 is UTC+2: local midnight is 22:00 UTC the day before.
    expect(parseIso8601('2026-02-01', { localOffsetMinutes: -120 })).toBe(utc('2026-01-31T22:00:00Z'));
    expect(parseIso8601('2026-02-01T05:30', { localOffsetMinutes: 330 })).toBe(utc('2026-02-01T11:00:00Z'));
  });

  it('makes a date-only upper bound the last millisecond of that local day', () => {
    expect(parseIso8601('2026-02-01', { endOfDay: true, localOffsetMinutes: -120 })).toBe(
      utc('2026-02-01T21:59:59.999Z'),
    );
  });

  it('rounds sub-millisecond digits down, or up for lower bounds', () => {
    expect(parseIso8601('2026-01-01T00:00:00.0001Z')).toBe(utc('2026-01-01T00:00:00.000Z'));
    expect(parseIso8601('2026-01-01T00:00:00.0001Z', { roundUp: true })).toBe(
      utc('2026-01-01T00:00:00.001Z'),
    );
    expect(parseIso8601('2026-01-01T00:00:00.5000Z', { roundUp: true })).toBe(
      utc('2026-01-01T00:00:00.500Z'),
    );
  });

  it('requires a zone when asked to', () => {
    expect(parseIso8601('2026-01-01T00:00:00', { zoneRequired: true })).toBeUndefined();
    expect(parseIso8601('2026-01-01', { zoneRequired: true })).toBeUndefined();
  });

  it.each([
    '2026-02-30',
    '2026-13-01',
    '2026-01-01T24:00:00Z',
    '2026-01-01T10:60Z',
    '2026-01-01T10:00:00+25:00',
    '01/02/2026',
    '2026-1-1',
    '0099-01-01',
    'now',
    '',
    '2026-02-29T10:00:00.000Z',
    '2026-04-31T10:00:00.000Z',
    '2026-01-01T24:00:00.000Z',
    '2026-01-01T10:00:60.000Z',
    '2026-01-01T10:00:00.0a0Z',
    '2026-01-01T10:00:00.000+',
    '0999-01-01T10:00:00.000Z',
  ])('rejects %j', (value) => {
    expect(parseIso8601(value)).toBeUndefined();
  });

  it('reads Date.toISOString() values exactly, leap days included', () => {
    const values = ['2024-02-29T23:59:59.999Z', '2000-02-29T00:00:00.000Z', '2026-12-31T12:34:56.789Z'];
    // A spread of instants over several centuries, one every 7,919,999,999 ms.
    for (let ms = Date.UTC(1900, 0, 1); ms < Date.UTC(2400, 0, 1); ms += 7_919_999_999)
      values.push(new Date(ms).toISOString());
    for (const value of values) expect(parseIso8601(value)).toBe(Date.parse(value));
    expect(parseIso8601('1900-02-29T00:00:00.000Z')).toBeUndefined();
  });
});
