import { ValidationError } from '@app/core';
import { parseExpiresIn } from './api-key-expiry';

describe(parseExpiresIn.name, () => {
  it.each([
    ['90d', 90 * 86_400_000],
    ['12h', 12 * 3_600_000],
    ['30m', 30 * 60_000],
    ['45s', 45_000],
    ['3650d', 3650 * 86_400_000],
  ])('reads %s', (value, ms) => {
    expect(parseExpiresIn(value)).toBe(ms);
  });

  it.each(['', '90', 'd', '0d', '-1d', '1.5h', '90 days', '2w', '3651d', '90D'])('refuses %j', (value) => {
    expect(() => parseExpiresIn(value)).toThrow(ValidationError);
    expect(() => parseExpiresIn(value)).toThrow(/--expires-in must be a whole number/);
  });
});
