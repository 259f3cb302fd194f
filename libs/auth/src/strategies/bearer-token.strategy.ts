import { passportJwtSecret } from 'jwks-rsa';
import { ExtractJwt, Strategy } from 'passport-jwt';
import type { OAuthSettings } from '../oauth-settings';

/** Who an MCP request acts for: the company and subscription named in the access token. */
export interface TokenPrincipal {
  companyId: string;
  subscriptionId: string;
  subject?: string;
  /** The token's scopes as it states them (`scope` or `scp`), filtered by no rule yet. */
  scopes: string[];
}

export const bearerTokenFrom = ExtractJwt.fromAuthHeaderAsBearerToken();

// Signing keys stay cached for 10 minutes; an unknown kid triggers a refetch, at most 10 a minute,
// so a flood of forged kids cannot turn into a flood of JWKS requests.
const JWKS_OPTIONS = {
  cache: true,
  cacheMaxEntries: 10,
  cacheMaxAge: 10 * 60 * 1000,
  rateLimit: true,
  jwksRequestsPerMinute: 10,
  timeout: 5000,
};

/**
 * passport-jwt checking an RS256 access token against the identity provider's JWKS, issuer and
 * audience; `resolve` turns the verified payload into a principal (or false to refuse it).
 */
export function createBearerTokenStrategy(
  settings: OAuthSettings,
  resolve: (payload: Record<string, unknown>) => Promise<TokenPrincipal | false>,
): Strategy {
  return new Strategy(
    {
      jwtFromRequest: bearerTokenFrom,
      secretOrKeyProvider: passportJwtSecret({ ...JWKS_OPTIONS, jwksUri: settings.jwksUri }),
      issuer: settings.issuer,
      audience: settings.audience,
      algorithms: ['RS256'],
      // Tolerates small clock differences between the identity provider and this service.
      jsonWebTokenOptions: { clockTolerance: 30 },
    },
    (payload: Record<string, unknown>, done: (error: unknown, user?: TokenPrincipal | false) => void) => {
      resolve(payload).then(
        (principal) => done(null, principal),
        (error: unknown) => done(error),
      );
    },
  );
}

/** The `{companyId, subscriptionId}` of a verified payload, or undefined when either is missing. */
export function userMetadataOf(
  payload: Record<string, unknown>,
  claim: string,
): { companyId: string; subscriptionId: string } | undefined {
  const metadata = payload[claim];
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const { companyId, subscriptionId } = metadata as Record<string, unknown>;
  if (typeof companyId !== 'string' || !companyId || typeof subscriptionId !== 'string' || !subscriptionId) {
    return undefined;
  }
  return { companyId, subscriptionId };
}
