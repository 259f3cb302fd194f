import { ValidationError } from '@app/core';

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
