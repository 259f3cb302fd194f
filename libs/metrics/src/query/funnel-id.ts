import { isUuid, ValidationError } from '@app/core';

/** A path id that is not a UUID is a bad request (400), as on every route; another company's funnel is a 404. */
export function assertFunnelId(funnelId: string): void {
  if (!isUuid(funnelId)) throw new ValidationError('funnelId must be a UUID');
}
