import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { AuthFailureLimiter } from '@app/core';
import { ApiKeysService } from '../api-keys.service';
import { BEARER_AUTH } from '../decorators/bearer-auth.decorator';
import type { AuthenticatedRequest } from '../decorators/current-company.decorator';
import { IS_PUBLIC } from '../decorators/public.decorator';
import { REQUIRED_PERMISSIONS } from '../decorators/require-permissions.decorator';
import type { Permission } from '../entities/api-key.entity';
import {
  ApiKeyRefusedError,
  ApiKeyRequiredError,
  MissingPermissionError,
  RouteNotAvailableError,
} from '../errors/auth.errors';

export const API_KEY_HEADER = 'x-service-api-key';

/**
 * Global guard: a route is refused unless it is `@Public()`, `@BearerAuth()` or declares
 * `@RequirePermissions`; the latter need a valid, unrevoked, unexpired key holding every listed
 * permission. Refused keys count against the client address (AuthFailureLimiter).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
    private readonly failures: AuthFailureLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    // Bearer-token routes are checked by their own guard.
    if (this.reflector.getAllAndOverride<boolean>(BEARER_AUTH, targets)) return true;
    const required = this.reflector.getAllAndOverride<Permission[] | undefined>(
      REQUIRED_PERMISSIONS,
      targets,
    );
    if (!required) throw new RouteNotAvailableError();

    const request = context.switchToHttp().getRequest<Request & AuthenticatedRequest>();
    const header = request.headers[API_KEY_HEADER];
    const presented = Array.isArray(header) ? header[0] : header;
    if (!presented) throw new ApiKeyRequiredError();
    await this.failures.refuseIfBlocked(request, context.switchToHttp().getResponse<Response>());
    const check = await this.apiKeys.authenticate(presented.trim());
    if ('refused' in check) {
      await this.failures.recordFailure(request);
      throw new ApiKeyRefusedError(check.refused);
    }
    const { principal } = check;
    request.principal = principal;
    const missing = required.filter((p) => !principal.permissions.includes(p));
    if (missing.length) throw new MissingPermissionError(missing);
    return true;
  }
}
