import { ArgumentsHost, Catch } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AllExceptionsFilter, isDatabaseUnavailable, OUTAGE_RETRY_AFTER_SECONDS } from '@app/core';
import { outageError } from './mcp-outage';

/**
 * /mcp answers a database outage met before any tool runs (the token's company is looked up) as a
 * JSON-RPC error, 503 with Retry-After; every other error keeps the REST error body.
 */
@Catch()
export class McpExceptionFilter extends AllExceptionsFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    if (!isDatabaseUnavailable(exception)) return super.catch(exception, host);
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) return;
    const body = host.switchToHttp().getRequest<Request>().body as { id?: unknown } | undefined;
    const id = typeof body?.id === 'string' || typeof body?.id === 'number' ? body.id : null;
    response.setHeader('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS));
    response.status(503).json(outageError(id));
  }
}
