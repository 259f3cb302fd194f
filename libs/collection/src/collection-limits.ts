import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ModuleRef } from '@nestjs/core';
import {
  AppConfigService,
  RATE_LIMIT_STORAGE,
  RATE_LIMIT_WINDOW_MS,
  RateLimitExceededError,
  RateLimitStorage,
} from '@app/core';

export type PublicRoute = 'collect' | 'submit';

/**
 * The limits of the public routes, a minute each: per client address and per funnel, so one
 * visitor cannot fill a funnel and one funnel cannot take the service. Counted in the API's
 * rate-limit store (shared by the replicas when REDIS_URL is set); a store outage lets requests
 * through, as it does for the API.
 */
@Injectable()
export class CollectionLimits implements OnModuleInit {
  private storage!: RateLimitStorage;

  constructor(
    private readonly modules: ModuleRef,
    @Inject(ConfigService) private readonly config: AppConfigService,
  ) {}

  onModuleInit(): void {
    this.storage = this.modules.get(RATE_LIMIT_STORAGE, { strict: false });
  }

  /** Counts the request; 429 (RateLimitExceededError) when either count is over its limit. */
  async count(route: PublicRoute, funnelId: string, address: string): Promise<void> {
    const [perAddress, perFunnel] =
      route === 'collect'
        ? [this.config.get('COLLECT_LIMIT_PER_ADDRESS'), this.config.get('COLLECT_LIMIT_PER_FUNNEL')]
        : [this.config.get('SUBMIT_LIMIT_PER_ADDRESS'), this.config.get('SUBMIT_LIMIT_PER_FUNNEL')];
    let records;
    try {
      records = await Promise.all([
        this.storage.increment(`${route}:addr:${address}`, RATE_LIMIT_WINDOW_MS, perAddress, 0, route),
        this.storage.increment(`${route}:funnel:${funnelId}`, RATE_LIMIT_WINDOW_MS, perFunnel, 0, route),
      ]);
    } catch {
      return;
    }
    const blocked = records.filter((r) => r.isBlocked);
    if (blocked.length)
      throw new RateLimitExceededError(Math.max(...blocked.map((r) => r.timeToBlockExpire)));
  }
}
