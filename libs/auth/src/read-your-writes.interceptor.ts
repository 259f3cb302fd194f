import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { finalize, type Observable } from 'rxjs';
import { ReadPool } from '@app/core';
import type { AuthenticatedRequest } from './decorators/current-company.decorator';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Runs each authenticated request as its company's, so the read pool can send a company that
 * just wrote to the primary. A request that may write (any method but GET, HEAD and OPTIONS,
 * MCP calls included) reads from the primary and records its company's write when it ends.
 * Registered only when a replica is configured (ApiKeyAuthModule.forRoot).
 */
@Injectable()
export class ReadYourWritesInterceptor implements NestInterceptor {
  constructor(private readonly reads: ReadPool) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<Request & AuthenticatedRequest>();
    const companyId = request.principal?.companyId;
    if (!companyId) return next.handle();
    const writing = !SAFE_METHODS.has(request.method);
    // The handler runs when the returned observable is subscribed, in the context bound here.
    const handled = this.reads.within(companyId, writing, () => next.handle());
    return writing ? handled.pipe(finalize(() => this.reads.wrote(companyId))) : handled;
  }
}
