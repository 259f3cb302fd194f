import { isUuid, ValidationError } from '@app/core';

/** Path ids that are not UUIDs are a bad request (400), not a missing resource. */
export function assertIds(ids: Record<string, string | undefined>): void {
  const problems = Object.entries(ids)
    .filter(([, value]) => !isUuid(value))
    .map(([name]) => `${name} must be a UUID`);
  if (problems.length) throw new ValidationError(problems[0], problems);
}
