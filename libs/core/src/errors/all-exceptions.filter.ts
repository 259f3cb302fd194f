import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainException, ServiceOverloadedError } from './domain.exception';
import { isDatabaseUnavailable, OUTAGE_RETRY_AFTER_SECONDS } from '../database/database-outage';
import { allowedMethods } from '../http/allowed-methods';
import { ErrorBody } from './error-body';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Request body too large',
  415: 'Unsupported media type',
  429: 'Rate limit exceeded',
  500: 'Internal server error',
  503: 'Service unavailable',
};

/** A domain error, also when Express handed it to Nest from a middleware (wrapped, as `cause`). */
function domainError(exception: unknown): DomainException | undefined {
  if (exception instanceof DomainException) return exception;
  const cause = exception instanceof HttpException ? exception.cause : undefined;
  return cause instanceof DomainException ? cause : undefined;
}

/**
 * Maps every error to `{error, status, details?}`. A database outage is a 503 with Retry-After (the
 * request may succeed when sent again); a known path with another method is a 405 with Allow;
 * unknown errors become a plain 500.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const request = http.getRequest<Request>();
    const body = this.toBody(exception, request);
    const overloaded = domainError(exception) instanceof ServiceOverloadedError;
    if (body.status === 503 && (overloaded || isDatabaseUnavailable(exception))) {
      const reason = overloaded
        ? (domainError(exception) as ServiceOverloadedError).reason
        : 'database unavailable';
      this.logger.warn(`${request.method} ${request.originalUrl?.split('?')[0]} answered 503: ${reason}`);
      if (!response.headersSent) response.setHeader('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS));
    } else if (body.status >= 500) {
      this.logger.error(
        `${request.method} ${request.originalUrl?.split('?')[0]} failed`,
        exception instanceof Error ? exception.stack : String(exception),
      );
    }
    if (response.headersSent) return;
    // A refusal that says when to come back (429s) says it in the header too.
    if (body.retryAfter !== undefined) response.setHeader('Retry-After', String(body.retryAfter));
    response.status(body.status).json(body);
  }

  private toBody(exception: unknown, request: Request): ErrorBody {
    // Express hands body-parser and URL errors to Nest wrapped in an HttpException (as `cause`).
    const parserBody = this.parserErrorBody(exception instanceof HttpException ? exception.cause : exception);
    if (parserBody) return parserBody;
    if (isDatabaseUnavailable(exception)) return { error: STATUS_TEXT[503], status: 503 };
    const domain = domainError(exception);
    if (domain) return domain.toBody();
    if (exception instanceof HttpException) return this.frameworkErrorBody(exception, request);
    return { error: STATUS_TEXT[500], status: 500 };
  }

  /**
   * The body for an exception Nest itself raised (our guards, pipes and services throw domain
   * exceptions): an unknown route, or a known path asked with another method.
   */
  private frameworkErrorBody(exception: HttpException, request: Request): ErrorBody {
    const status = exception.getStatus();
    if (status === HttpStatus.NOT_FOUND) {
      // The path exists with other methods (TRACE, PATCH, ... on a known route): 405, not 404.
      // A route of this very method that answers 404 (one switched off by configuration) stays 404.
      const allowed = allowedMethods(request);
      if (allowed.length && !allowed.includes(request.method)) {
        request.res?.setHeader('Allow', allowed.join(', '));
        return { error: `Method ${request.method} is not allowed on ${request.path}`, status: 405 };
      }
      return { error: `Cannot ${request.method} ${request.path}`, status };
    }
    const payload = exception.getResponse();
    if (typeof payload === 'string') return { error: payload, status };
    const { message } = (payload ?? {}) as { message?: unknown };
    // Nest's own ValidationPipe lists every problem in `message`.
    if (Array.isArray(message)) return this.withDetails({ error: 'Validation failed', status }, message);
    return { error: typeof message === 'string' ? message : (STATUS_TEXT[status] ?? 'Error'), status };
  }

  /** The body for an error raised while reading the request (body parser, URL decoding), if it is one. */
  private parserErrorBody(error: unknown): ErrorBody | undefined {
    if (error instanceof URIError) return { error: 'Malformed URL encoding', status: 400 };
    const { status, type } = (error ?? {}) as { status?: unknown; type?: unknown };
    // body-parser reports a refused `verify` as 403 whatever we say; too deep a body is a bad request.
    if (type === 'entity.too.deep') return { error: (error as Error).message, status: 400 };
    if (typeof status !== 'number' || status < 400 || status >= 500 || typeof type !== 'string')
      return undefined;
    if (type === 'entity.parse.failed') return { error: 'Malformed JSON body', status: 400 };
    if (type === 'entity.too.large') {
      // The event-batch route has a larger limit than the others: name the one that applied.
      const limit = (error as { limit?: unknown }).limit;
      const size =
        typeof limit !== 'number'
          ? '100 kB'
          : limit >= 1048576
            ? `${limit / 1048576} MB`
            : `${limit / 1024} kB`;
      return { error: `Request body too large (limit ${size})`, status: 413 };
    }
    return { error: STATUS_TEXT[status] ?? 'Bad request', status };
  }

  private withDetails(body: ErrorBody, details?: string[]): ErrorBody {
    return details?.length ? { ...body, details } : body;
  }
}
