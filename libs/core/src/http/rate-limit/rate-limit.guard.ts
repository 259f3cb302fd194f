import { ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerRequest } from '@nestjs/throttler';
import type { Response } from 'express';
import { HttpMetrics } from '../../observability/http-metrics';
import { RateLimitExceededError } from './rate-limit-exceeded.error';

// A storage outage is logged at most this often, not once per request.
const OUTAGE_LOG_INTERVAL_MS = 60_000;

/**
 * `@nestjs/throttler`'s guard with the service's wire format: `RateLimit-*` headers on every
 * limited response, and a 429 with `Retry-After` and `{"error","status","retryAfter"}`. One count
 * per caller spans every route of a throttler (the key ignores the handler). When the counter
 * store is unreachable the request goes through: an outage of Redis must not take the API down.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override logger = new Logger('RateLimit');
  private lastOutageLog = 0;
  // A property, so the throttler's own constructor injections stay as they are.
  @Inject(HttpMetrics) private readonly httpMetrics!: HttpMetrics;

  protected override async handleRequest(request: ThrottlerRequest): Promise<boolean> {
    const { context, limit, ttl, throttler, blockDuration, getTracker, generateKey } = request;
    const { req, res } = this.getRequestResponse(context);
    const name = throttler.name ?? 'default';
    const key = generateKey(context, await getTracker(req, context), name);

    let record;
    try {
      record = await this.storageService.increment(key, ttl, limit, blockDuration, name);
    } catch (error) {
      this.logOutage(error);
      return true;
    }

    const response = res as Response;
    response.setHeader('RateLimit-Limit', limit);
    response.setHeader('RateLimit-Remaining', Math.max(0, limit - record.totalHits));
    response.setHeader('RateLimit-Reset', record.timeToExpire);
    if (record.isBlocked) {
      this.httpMetrics.rateLimited(name);
      response.setHeader('Retry-After', record.timeToBlockExpire);
      throw new RateLimitExceededError(record.timeToBlockExpire);
    }
    return true;
  }

  protected override generateKey(_context: ExecutionContext, tracker: string, name: string): string {
    return `${name}:${tracker}`;
  }

  private logOutage(error: unknown): void {
    const now = Date.now();
    if (now - this.lastOutageLog < OUTAGE_LOG_INTERVAL_MS) return;
    this.lastOutageLog = now;
    this.logger.error(
      `rate-limit storage unavailable, requests are not limited: ${(error as Error)?.message ?? error}`,
    );
  }
}
