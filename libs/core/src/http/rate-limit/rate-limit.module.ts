import { createHash } from 'node:crypto';
import {
  DynamicModule,
  ExecutionContext,
  Inject,
  Logger,
  Module,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { normalizeIp, ThrottlerModule } from '@nestjs/throttler';
import type { Request } from 'express';
import { AUTH_FAILURES_PER_MINUTE, AuthFailureLimiter, RATE_LIMIT_STORAGE } from './auth-failure-limiter';
import { MemoryRateLimitStorage } from './memory-rate-limit.storage';
import {
  API_THROTTLER,
  MCP_THROTTLER,
  PUBLIC_RATE_LIMIT_PER_MINUTE,
  PUBLIC_THROTTLER,
  RATE_LIMIT_WINDOW_MS,
} from './rate-limit.constants';
import type { RateLimitStorage } from './rate-limit-storage';
import { RateLimitGuard } from './rate-limit.guard';
import { RedisRateLimitStorage } from './redis-rate-limit.storage';

// Same metadata key as `@Public()` in libs/auth (core cannot import auth).
const IS_PUBLIC = 'auth:public';
const API_KEY_HEADER = 'x-service-api-key';
const VERSIONED_ROUTE = /^\/v\d+\//;
const MCP_ROUTE = '/mcp';

export interface RateLimitOptions {
  /** RATE_LIMIT_PER_MINUTE: requests a minute per API key across all /v1 routes, and per token on /mcp. */
  perMinute: number;
  /** AUTH_FAILURES_PER_MINUTE: refused keys and tokens a minute per client address (see AuthFailureLimiter). */
  authFailuresPerMinute: number;
  /** REDIS_URL: shared counts for several replicas; unset = counts in this process. */
  redisUrl?: string;
}

/**
 * The route pattern the router matched (`/v1/funnels/:funnelId/contacts`), never the path as sent:
 * Express matches `/V1/…`, a trailing slash and percent-encoded parameters to the same handler, so
 * a limit that read the path could be stepped around by spelling it differently.
 */
export function matchedRoute(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  return typeof route?.path === 'string' ? route.path : req.path.toLowerCase();
}

const clientAddress = (req: Request) =>
  `addr:${normalizeIp(req.ip ?? req.socket.remoteAddress ?? 'unknown')}`;

/**
 * The key as presented, hashed: the count follows the key whether or not it is valid and
 * whichever guard runs first, and the secret itself never reaches the counter store.
 */
export function apiKeyTracker(req: Request): string {
  const header = req.headers[API_KEY_HEADER];
  const presented = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!presented) return clientAddress(req);
  return `key:${createHash('sha256').update(presented).digest('hex')}`;
}

/**
 * The bearer token, hashed like API keys and counted before it is checked, in its canonical
 * spelling: the last base64url character of a signature carries bits the decoder drops, so
 * several texts verify as one token; re-encoding the decoded signature makes them one count.
 */
export function bearerTracker(req: Request): string {
  const token = /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1];
  if (!token) return clientAddress(req);
  return `token:${createHash('sha256').update(canonicalJws(token)).digest('hex')}`;
}

/** `header.payload.signature` with the signature as its bytes encode; anything else as it is. */
export function canonicalJws(token: string): string {
  const parts = token.split('.');
  if (parts.length !== 3) return token;
  const [header, payload, signature] = parts;
  return `${header}.${payload}.${Buffer.from(signature, 'base64url').toString('base64url')}`;
}

class StorageLifecycle implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private lastErrorLog = 0;

  constructor(@Inject(RATE_LIMIT_STORAGE) private readonly storage: RateLimitStorage) {}

  async onModuleInit(): Promise<void> {
    if (!(this.storage instanceof RedisRateLimitStorage)) return;
    // ioredis reports every failed reconnect; one line a minute is enough.
    this.storage.onError((error) => {
      if (Date.now() - this.lastErrorLog < RATE_LIMIT_WINDOW_MS) return;
      this.lastErrorLog = Date.now();
      this.logger.warn(`Redis: ${error.message}`);
    });
    await this.storage
      .connect()
      .catch((error: Error) =>
        this.logger.error(
          `cannot reach REDIS_URL (${error.message}); requests are not limited until it answers`,
        ),
      );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.storage.close();
  }
}

/**
 * Rate limits (product decisions §4): `api` counts per API key on every /v1 route, `public` counts
 * per client address on `@Public()` routes, `mcp` counts per bearer token on /mcp (the allowance of
 * a key: a tool call costs what its REST twin does). Import it before the auth guard so a request
 * is counted (and refused with 429) before its key or token is checked.
 */
@Module({})
export class RateLimitModule {
  static forRoot(options: RateLimitOptions): DynamicModule {
    const storage: RateLimitStorage = options.redisUrl
      ? RedisRateLimitStorage.fromUrl(options.redisUrl)
      : new MemoryRateLimitStorage();
    const reflector = new Reflector();
    const isPublic = (context: ExecutionContext) =>
      !!reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    const route = (context: ExecutionContext) => matchedRoute(context.switchToHttp().getRequest<Request>());
    const isVersioned = (context: ExecutionContext) => VERSIONED_ROUTE.test(route(context));

    return {
      module: RateLimitModule,
      // Global: the auth guards of every module consult the failed-authentication count.
      global: true,
      imports: [
        ThrottlerModule.forRoot({
          storage,
          throttlers: [
            {
              name: API_THROTTLER,
              limit: options.perMinute,
              ttl: RATE_LIMIT_WINDOW_MS,
              getTracker: (req) => apiKeyTracker(req as Request),
              skipIf: (context) => context.getType() !== 'http' || !isVersioned(context),
            },
            {
              name: MCP_THROTTLER,
              limit: options.perMinute,
              ttl: RATE_LIMIT_WINDOW_MS,
              getTracker: (req) => bearerTracker(req as Request),
              skipIf: (context) => context.getType() !== 'http' || route(context) !== MCP_ROUTE,
            },
            {
              name: PUBLIC_THROTTLER,
              limit: PUBLIC_RATE_LIMIT_PER_MINUTE,
              ttl: RATE_LIMIT_WINDOW_MS,
              getTracker: (req) => clientAddress(req as Request),
              skipIf: (context) => context.getType() !== 'http' || !isPublic(context),
            },
          ],
        }),
      ],
      providers: [
        { provide: RATE_LIMIT_STORAGE, useValue: storage },
        { provide: AUTH_FAILURES_PER_MINUTE, useValue: options.authFailuresPerMinute },
        AuthFailureLimiter,
        StorageLifecycle,
        { provide: APP_GUARD, useClass: RateLimitGuard },
      ],
      exports: [RATE_LIMIT_STORAGE, AuthFailureLimiter],
    };
  }
}
