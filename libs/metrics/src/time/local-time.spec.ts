import { calendarKeys, slotLabel, weekdayHourSlot } from './local-time';
import { FixedOffsetZone } from './time-zone';

const t = (iso: string) => Date.parse(iso);

describe('local time', () => {
  it('puts an instant in its local ISO weekday and hour', () => {
    // Saturday 2026-01-31 23:30 UTC is Sunday 01:30 at UTC+2 (offset -120) and Saturday 18:00 at UTC-5:30.
    expect(slotLabel(weekdayHourSlot(t('2026-01-31T23:30:00Z'), -120))).toEqual({
      key: '7-01',
      name: 'Sunday 01:00',
    });
    expect(slotLabel(weekdayHourSlot(t('2026-01-31T23:30:00Z'), 330))).toEqual({
      key: '6-18',
      name: 'Saturday 18:00',
    });
    expect(slotLabel(weekdayHourSlot(t('2026-02-02T00:00:00Z'), 0))).toEqual({
      key: '1-00',
      name: 'Monday 00:00',
    });
  });

  it('lists every local day or month of a period', () => {
    expect(
      calendarKeys(
        t('2026-01-30T22:00:00Z'),
        t('2026-02-01T21:59:59.999Z'),
        new FixedOffsetZone(-120),
        'day',
      ),
    ).toEqual(['2026-01-31', '2026-02-01']);
    expect(
      calendarKeys(t('2025-11-15T00:00:00Z'), t('2026-02-01T00:00:00Z'), new FixedOffsetZone(0), 'month'),
    ).toEqual(['2025-11', '2025-12', '2026-01', '2026-02']);
  });
});
