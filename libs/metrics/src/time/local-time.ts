import { MINUTE_MS } from './buckets';
import type { LocalZone } from './time-zone';

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;
export const SLOTS = 7 * 24;

/** Local wall-clock time as a UTC Date (read it with getUTC*): local = UTC − offset minutes. */
const localDate = (ms: number, offset: number) => new Date(ms - offset * MINUTE_MS);

/** 0..167: (ISO weekday − 1) × 24 + local hour. */
export function weekdayHourSlot(ms: number, offset: number): number {
  const local = localDate(ms, offset);
  const weekday = (local.getUTCDay() + 6) % 7;
  return weekday * 24 + local.getUTCHours();
}

/** `D-HH` and `Monday 09:00` of a slot. */
export function slotLabel(slot: number): { key: string; name: string } {
  const weekday = Math.floor(slot / 24);
  const hour = String(slot % 24).padStart(2, '0');
  return { key: `${weekday + 1}-${hour}`, name: `${WEEKDAYS[weekday]} ${hour}:00` };
}

/** Every local day (`YYYY-MM-DD`) or month (`YYYY-MM`) from `from` to `to`, both included. */
export function calendarKeys(from: number, to: number, zone: LocalZone, unit: 'day' | 'month'): string[] {
  const first = localDate(from, zone.offsetAt(from));
  const last = localDate(to, zone.offsetAt(to));
  const keys: string[] = [];
  if (unit === 'day') {
    const end = Date.UTC(last.getUTCFullYear(), last.getUTCMonth(), last.getUTCDate());
    for (
      let d = Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), first.getUTCDate());
      d <= end;
      d += 86_400_000
    ) {
      keys.push(new Date(d).toISOString().slice(0, 10));
    }
  } else {
    let year = first.getUTCFullYear();
    let month = first.getUTCMonth();
    while (year < last.getUTCFullYear() || (year === last.getUTCFullYear() && month <= last.getUTCMonth())) {
      keys.push(`${year}-${String(month + 1).padStart(2, '0')}`);
      if (++month === 12) [year, month] = [year + 1, 0];
    }
  }
  return keys;
}
