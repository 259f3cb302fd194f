import { FixedOffsetZone, ianaZone, IanaZone } from './time-zone';
import { fitsLocalHours } from './zone-sql';

const t = (iso: string) => Date.parse(iso);
const berlin = ianaZone('Europe/Berlin') as IanaZone;
const newYork = ianaZone('America/New_York') as IanaZone;

describe(IanaZone.name, () => {
  it('gives the offset in force, daylight saving included', () => {
    // CET is UTC+1 (-60), CEST UTC+2 (-120); EST UTC−5 (300), EDT UTC−4 (240).
    expect(berlin.offsetAt(t('2026-01-15T12:00:00Z'))).toBe(-60);
    expect(berlin.offsetAt(t('2026-03-29T00:59:59Z'))).toBe(-60);
    expect(berlin.offsetAt(t('2026-03-29T01:00:00Z'))).toBe(-120);
    expect(berlin.offsetAt(t('2026-10-25T00:59:59Z'))).toBe(-120);
    expect(berlin.offsetAt(t('2026-10-25T01:00:00Z'))).toBe(-60);
    expect(newYork.offsetAt(t('2026-03-08T06:59:59Z'))).toBe(300);
    expect(newYork.offsetAt(t('2026-03-08T07:00:00Z'))).toBe(240);
    expect(newYork.offsetAt(t('2026-11-01T05:59:59Z'))).toBe(240);
    expect(newYork.offsetAt(t('2026-11-01T06:00:00Z'))).toBe(300);
    expect(ianaZone('Asia/Kathmandu')?.offsetAt(t('2026-01-01T00:00:00Z'))).toBe(-345);
  });

  it('reads a wall-clock time as its instant, the earlier one when it occurs twice', () => {
    expect(berlin.toUtc(t('2026-03-29T00:00:00Z'))).toBe(t('2026-03-28T23:00:00Z'));
    expect(berlin.toUtc(t('2026-03-30T00:00:00Z'))).toBe(t('2026-03-29T22:00:00Z'));
    // 02:30 never happens on 2026-03-29: read at UTC+1 it is 01:30Z, which is 03:30 CEST.
    expect(berlin.toUtc(t('2026-03-29T02:30:00Z'))).toBe(t('2026-03-29T01:30:00Z'));
    // 02:30 happens twice on 2026-10-25: first at UTC+2 (00:30Z), then at UTC+1 (01:30Z).
    expect(berlin.toUtc(t('2026-10-25T02:30:00Z'))).toBe(t('2026-10-25T00:30:00Z'));
    expect(newYork.toUtc(t('2026-11-01T01:30:00Z'))).toBe(t('2026-11-01T05:30:00Z'));
    expect(newYork.toUtc(t('2026-03-08T02:15:00Z'))).toBe(t('2026-03-08T07:15:00Z'));
  });

  it('lists the offsets of a window with the instants they change at', () => {
    expect(berlin.periods(t('2026-03-01T00:00:00Z'), t('2026-11-01T00:00:00Z'))).toEqual([
      { since: t('2026-03-01T00:00:00Z'), offset: -60 },
      { since: t('2026-03-29T01:00:00Z'), offset: -120 },
      { since: t('2026-10-25T01:00:00Z'), offset: -60 },
    ]);
    expect(newYork.periods(t('2026-11-01T04:00:00Z'), t('2026-11-02T04:59:59.999Z'))).toEqual([
      { since: t('2026-11-01T04:00:00Z'), offset: 240 },
      { since: t('2026-11-01T06:00:00Z'), offset: 300 },
    ]);
    expect(berlin.periods(t('2026-05-01T00:00:00Z'), t('2026-06-01T00:00:00Z'))).toHaveLength(1);
  });
});

describe(ianaZone.name, () => {
  it('knows IANA names in any case and gives their canonical spelling', () => {
    expect(ianaZone('europe/berlin')?.name).toBe('Europe/Berlin');
    expect(ianaZone('UTC')?.offsetAt(0)).toBe(0);
  });

  it.each(['Mars/Olympus', 'Europe/Berlin ', '+01:00', 'GMT+1:00', '', '../etc', 'x'.repeat(80)])(
    'refuses %j',
    (name) => {
      expect(ianaZone(name)).toBeUndefined();
    },
  );
});

describe(FixedOffsetZone.name, () => {
  it('has one offset', () => {
    const zone = new FixedOffsetZone(-330);
    expect(zone.toUtc(t('2026-01-01T05:30:00Z'))).toBe(t('2026-01-01T00:00:00Z'));
    expect(zone.periods(5)).toEqual([{ since: 5, offset: -330 }]);
  });
});

describe(fitsLocalHours.name, () => {
  it('keeps hourly buckets across a change on a whole hour, quarter hours for a +5:45 zone', () => {
    const periods = berlin.periods(t('2026-03-28T00:00:00Z'), t('2026-03-30T00:00:00Z'));
    expect([3_600, 900, 60, 10].map((g) => fitsLocalHours(g, periods))).toEqual([true, true, true, true]);
    const kathmandu = [{ since: 0, offset: -345 }];
    expect([3_600, 900, 60].map((g) => fitsLocalHours(g, kathmandu))).toEqual([false, true, true]);
    // A change at a half hour (as Lord Howe Island's) rules out hourly buckets.
    expect(
      fitsLocalHours(3_600, [
        { since: 0, offset: -630 },
        { since: 1_800_000, offset: -660 },
      ]),
    ).toBe(false);
  });
});
