import { Inject, Injectable, Logger } from '@nestjs/common';
import { normalizeIp } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { HttpMetrics } from '../../observability/http-metrics';
import { RateLimitExceededError } from './rate-limit-exceeded.error';
import { AUTH_FAILURES_THROTTLER, RATE_LIMIT_WINDOW_MS } from './rate-limit.constants';
import type { RateLimitStorage } from './rate-limit-storage';

export const RATE_LIMIT_STORAGE = Symbol('RATE_LIMIT_STORAGE');
export const AUTH_FAILURES_PER_MINUTE = Symbol('AUTH_FAILURES_PER_MINUTE');

/**
 * Failed authentication per client address (AUTH_FAILURES_PER_MINUTE): past the limit, the
 * address's requests to authenticated routes are 429 until the window ends, before any key is
 * looked up or token checked, so guessing keys or tokens costs the database nothing. Every new
 * key has a count of its own under the API limit; this count is what a flood of them shares.
 */
@Injectable()
export class AuthFailureLimiter {
  private readonly logger = new Logger('RateLimit');

  constructor(
    @Inject(RATE_LIMIT_STORAGE) private readonly storage: RateLimitStorage,
    @Inject(AUTH_FAILURES_PER_MINUTE) private readonly limit: number,
    @Inject(HttpMetrics) private readonly httpMetrics: HttpMetrics,
  ) {}

  /** Throws the 429 (with `Retry-After`) when the address is over its limit. */
  async refuseIfBlocked(req: Request, res: Response): Promise<void> {
    const window = await this.storage.peek(this.key(req)).catch((error: Error) => {
      // A storage outage must not refuse every request; the guard has logged it already.
      this.logger.debug(`failed-authentication count unavailable: ${error.message}`);
      return undefined;
    });
    if (!window || window.hits < this.limit) return;
    const retryAfter = Math.max(1, Math.ceil(window.msLeft / 1000));
    this.httpMetrics.rateLimited(AUTH_FAILURES_THROTTLER);
    res.setHeader('Retry-After', retryAfter);
    throw new RateLimitExceededError(retryAfter);
  }

  /** Counts one refused key or token against the request's address. */
  async recordFailure(req: Request): Promise<void> {
    await this.storage
      .increment(this.key(req), RATE_LIMIT_WINDOW_MS, this.limit, 0, AUTH_FAILURES_THROTTLER)
      .catch(() => undefined);
  }

  private key(req: Request): string {
    const address = normalizeIp(req.ip ?? req.socket.remoteAddress ?? 'unknown');
    return `${AUTH_FAILURES_THROTTLER}:addr:${address}`;
  }
}
