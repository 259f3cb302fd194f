import { ValidationError } from '@app/core';

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 } as const;
// Ten years: far enough for any real key, near enough that the instant stays a valid date.
const MAX_DAYS = 3_650;
const MAX_MS = MAX_DAYS * UNIT_MS.d;

/** `90d`, `12h`, `30m` or `45s` as milliseconds; anything else is a 400 naming the option. */
export function parseExpiresIn(value: string, flag = '--expires-in'): number {
  const match = /^([1-9][0-9]{0,9})([dhms])$/.exec(value.trim());
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : NaN;
  if (!(ms <= MAX_MS)) {
    throw new ValidationError(
      `${flag} must be a whole number of days, hours, minutes or seconds up to ${MAX_DAYS}d, like 90d, 12h, 30m or 45s`,
    );
  }
  return ms;
}
