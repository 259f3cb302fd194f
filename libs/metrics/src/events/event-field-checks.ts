import { isStorableText, isUuid, UNSTORABLE_TEXT_RULE } from '@app/core';

// The checks of one member of a raw event: each appends its problem (named by the member's path
// `at`) and returns the value only when it is valid.

export type Problems = string[];

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function text(
  raw: Record<string, unknown>,
  name: string,
  at: string,
  problems: Problems,
  max: number,
  required = true,
) {
  const value = raw[name];
  if (value === undefined) {
    if (required) problems.push(`${at}.${name} is required`);
    return undefined;
  }
  if (typeof value !== 'string' || value.length < 1 || value.length > max) {
    problems.push(`${at}.${name} must be a string of 1 to ${max} characters`);
    return undefined;
  }
  if (!isStorableText(value)) {
    problems.push(`${at}.${name} ${UNSTORABLE_TEXT_RULE}`);
    return undefined;
  }
  return value;
}

export function oneOf<T extends string>(
  raw: Record<string, unknown>,
  name: string,
  at: string,
  problems: Problems,
  allowed: readonly T[],
  required: boolean,
) {
  const value = raw[name];
  if (value === undefined) {
    if (required) problems.push(`${at}.${name} is required`);
    return undefined;
  }
  if (!allowed.includes(value as T)) {
    problems.push(`${at}.${name} must be one of ${allowed.join(', ')}`);
    return undefined;
  }
  return value as T;
}

export function pattern(
  raw: Record<string, unknown>,
  name: string,
  at: string,
  problems: Problems,
  re: RegExp,
  rule: string,
) {
  const value = raw[name];
  if (value === undefined) problems.push(`${at}.${name} is required`);
  else if (typeof value !== 'string' || !re.test(value)) problems.push(`${at}.${name} must be ${rule}`);
  else return value;
  return undefined;
}

export function uuid(
  raw: Record<string, unknown>,
  name: string,
  at: string,
  problems: Problems,
  required: boolean,
) {
  const value = raw[name];
  if (value === undefined) {
    if (required) problems.push(`${at}.${name} is required`);
    return undefined;
  }
  if (!isUuid(value)) problems.push(`${at}.${name} must be a UUID`);
  return isUuid(value) ? value.toLowerCase() : undefined;
}
