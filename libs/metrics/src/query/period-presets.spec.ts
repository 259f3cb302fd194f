import { ValidationError } from '@app/core';
import { presetPeriod } from './period-presets';

describe('presetPeriod', () => {
  // 2026-03-29T22:30Z: already Monday the 30th in Berlin (UTC+2 since that morning), still Sunday in UTC.
  const now = Date.parse('2026-03-29T22:30:00Z');

  it('counts today as the last of the days, in UTC by default', () => {
    expect(presetPeriod('last_7_days', {}, now)).toEqual({ from: '2026-03-23', to: '2026-03-29' });
    expect(presetPeriod('today', {}, now)).toEqual({ from: '2026-03-29', to: '2026-03-29' });
  });

  it("takes today from the caller's time zone, by name or by offset", () => {
    expect(presetPeriod('last_7_days', { timezone: 'Europe/Berlin' }, now)).toEqual({
      from: '2026-03-24',
      to: '2026-03-30',
    });
    expect(presetPeriod('last_30_days', { offset: '300' }, now)).toEqual({
      from: '2026-02-28',
      to: '2026-03-29',
    });
  });

  it('refuses an unknown time zone, or both zone parameters, as every metric read does', () => {
    expect(() => presetPeriod('today', { timezone: 'Mars/Olympus' }, now)).toThrow(ValidationError);
    expect(() => presetPeriod('today', { timezone: 'UTC', offset: '0' }, now)).toThrow(
      'offset and timezone are alternatives: give one of them',
    );
  });
});
