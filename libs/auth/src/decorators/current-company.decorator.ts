import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { ApiKeyPrincipal } from '../api-keys.service';
import type { TokenPrincipal } from '../strategies/bearer-token.strategy';

export interface AuthenticatedRequest {
  /** Set by the API-key guard (REST) or the bearer-token guard (MCP). */
  principal?: ApiKeyPrincipal | TokenPrincipal;
}

/** The company id of the authenticated caller; every query is scoped by it. */
export const CurrentCompany = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw new Error('CurrentCompany used on a route without authentication');
  return principal.companyId;
});

/** The verified access token of a `@BearerAuth()` route: its company, subject and scopes. */
export const CurrentToken = createParamDecorator((_: unknown, context: ExecutionContext): TokenPrincipal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal || !('scopes' in principal))
    throw new Error('CurrentToken used on a route without bearer authentication');
  return principal;
});
