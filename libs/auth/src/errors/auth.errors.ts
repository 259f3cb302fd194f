import { DomainException } from '@app/core';
import type { Permission } from '../entities/api-key.entity';

/** No `x-service-api-key` header. */
export class ApiKeyRequiredError extends DomainException {
  constructor() {
    super(401, 'API key is required');
  }
}

/** A key that is unknown, malformed or revoked, or one past its expiry. */
export class ApiKeyRefusedError extends DomainException {
  constructor(readonly reason: 'invalid' | 'expired') {
    super(401, reason === 'expired' ? 'API key expired' : 'Invalid or unauthorized API key');
  }
}

/** A valid key without every permission the route requires; the message names the missing ones. */
export class MissingPermissionError extends DomainException {
  constructor(readonly missing: readonly Permission[]) {
    super(403, `API key lacks the required permission: ${missing.join(', ')}`);
  }
}

/** A route that declares no way in (neither public nor a permission): refused by default. */
export class RouteNotAvailableError extends DomainException {
  constructor() {
    super(403, 'This route is not available');
  }
}

/** No bearer token, or one that fails validation (the guard adds the `WWW-Authenticate` challenge). */
export class BearerTokenRefusedError extends DomainException {
  constructor(readonly tokenSent: boolean) {
    super(401, tokenSent ? 'Invalid token' : 'Bearer token is required');
  }
}

/** No identity provider is configured, so no bearer token can be checked. */
export class OAuthNotConfiguredError extends DomainException {
  constructor() {
    super(503, 'OAuth is not configured on this server');
  }
}

/** The identity provider's signing keys (JWKS) cannot be fetched: the caller may try again. */
export class IdentityProviderUnavailableError extends DomainException {
  constructor() {
    super(503, 'The identity provider is unavailable, try again later');
  }
}
