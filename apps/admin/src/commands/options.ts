import { assertStorableText, ValidationError } from '@app/core';

/** Splits a comma-separated option value, dropping blanks. */
export const list = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export function required<T>(value: T | undefined, flag: string): T {
  if (value === undefined || value === '') throw new ValidationError(`${flag} is required`);
  return value;
}

/**
 * An option value the CLI stores: the same storable-text rule as the API (no NUL, no unpaired
 * surrogate) and the column's length where it has one.
 */
export const text = (value: string, flag: string, maxLength?: number): string =>
  assertStorableText(value, flag, maxLength);
