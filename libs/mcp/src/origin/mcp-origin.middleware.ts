import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { NextFunction, Request, Response } from 'express';
import type { AppConfigService } from '@app/core';
import { originPolicy } from './allowed-origins';

export const ORIGIN_NOT_ALLOWED = 'Origin not allowed';

/**
 * Refuses a browser request to /mcp from an origin that is not allowed (403 in the error shape),
 * before CORS and authentication. Requests without `Origin` (non-browser clients) pass.
 */
@Injectable()
export class McpOriginMiddleware implements NestMiddleware {
  private readonly allowed: (origin: string) => boolean;

  constructor(@Inject(ConfigService) config: AppConfigService) {
    this.allowed = originPolicy({
      MCP_ALLOWED_ORIGINS: config.get('MCP_ALLOWED_ORIGINS', { infer: true }),
      BASE_URL: config.get('BASE_URL', { infer: true }),
      NODE_ENV: config.get('NODE_ENV', { infer: true }),
    });
  }

  use(request: Request, response: Response, next: NextFunction): void {
    const origin = request.headers.origin;
    if (origin === undefined || this.allowed(origin)) return next();
    response.status(403).json({ error: ORIGIN_NOT_ALLOWED, status: 403 });
  }
}
