import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainException } from './domain.exception';
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

/** Maps every error to `{error, status, details?}`; unknown errors become a plain 500. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const request = http.getRequest<Request>();
    const body = this.toBody(exception, request);
    if (body.status >= 500) {
      this.logger.error(
        `${request.method} ${request.originalUrl?.split('?')[0]} failed`,
        exception instanceof Error ? exception.stack : String(exception),
      );
    }
    if (response.headersSent) return;
    response.status(body.status).json(body);
  }

  private toBody(exception: unknown, request: Request): ErrorBody {
    // Express hands body-parser and URL errors to Nest wrapped in an HttpException (as `cause`).
    const parserBody = this.parserErrorBody(exception instanceof HttpException ? exception.cause : exception);
    if (parserBody) return parserBody;
    if (exception instanceof DomainException) {
      return this.withDetails({ error: exception.message, status: exception.status }, exception.details);
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const payload = exception.getResponse();
      if (
        status === HttpStatus.NOT_FOUND &&
        !(typeof payload === 'object' && (payload as ErrorBody).error && (payload as ErrorBody).status)
      ) {
        return { error: `Cannot ${request.method} ${request.path}`, status };
      }
      if (typeof payload === 'object' && payload !== null) {
        const p = payload as { error?: unknown; message?: unknown; details?: unknown; retryAfter?: unknown };
        const messages = Array.isArray(p.message) ? (p.message as string[]) : undefined;
        const error =
          typeof p.error === 'string' && typeof (payload as ErrorBody).status === 'number'
            ? p.error
            : messages
              ? 'Validation failed'
              : typeof p.message === 'string'
                ? p.message
                : (STATUS_TEXT[status] ?? 'Error');
        const body: ErrorBody = { error, status };
        if (typeof p.retryAfter === 'number') body.retryAfter = p.retryAfter;
        return this.withDetails(
          body,
          messages ?? (Array.isArray(p.details) ? (p.details as string[]) : undefined),
        );
      }
      return { error: typeof payload === 'string' ? payload : (STATUS_TEXT[status] ?? 'Error'), status };
    }
    return { error: STATUS_TEXT[500], status: 500 };
  }

  /** The body for an error raised while reading the request (body parser, URL decoding), if it is one. */
  private parserErrorBody(error: unknown): ErrorBody | undefined {
    if (error instanceof URIError) return { error: 'Malformed URL encoding', status: 400 };
    const { status, type } = (error ?? {}) as { status?: unknown; type?: unknown };
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
