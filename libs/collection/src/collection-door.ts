import { Injectable } from '@nestjs/common';
import { DomainException } from '@app/core';
import { acceptsOrigin, CachedFunnel, FunnelsService } from '@app/workspaces';
import type { BrowserRequest } from './browser-request';
import { CollectionLimits, PublicRoute } from './collection-limits';

/** A page whose origin the funnel does not allow (or a funnel without collection, or none). */
export class OriginNotAllowedError extends DomainException {
  constructor() {
    super(403, 'This origin may not send to this funnel');
  }
}

/**
 * The checks every public route of a funnel makes first: the funnel's collection is on and the
 * page's origin is allowed (a missing funnel looks the same, so ids cannot be probed), then the
 * limits. Nothing is counted for a refused origin.
 */
@Injectable()
export class CollectionDoor {
  constructor(
    private readonly funnels: FunnelsService,
    private readonly limits: CollectionLimits,
  ) {}

  /** The funnel when `origin` may send to it; OriginNotAllowedError otherwise. */
  async allowedFunnel(funnelId: string, origin: string | undefined): Promise<CachedFunnel> {
    const funnel = await this.funnels.findCached(funnelId);
    if (!funnel || !acceptsOrigin(funnel.collection, origin)) throw new OriginNotAllowedError();
    return funnel;
  }

  /** The funnel after the origin check and the limits of the route (429 over them). */
  async admit(route: PublicRoute, funnelId: string, browser: BrowserRequest): Promise<CachedFunnel> {
    const funnel = await this.allowedFunnel(funnelId, browser.origin);
    await this.limits.count(route, funnel.id, browser.address);
    return funnel;
  }
}
