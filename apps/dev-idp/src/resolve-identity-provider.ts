import type { EnvironmentVariables } from '@app/core';
import { databaseDevUser } from './dev-user';

/** OAuth settings the service uses when the bundled development identity provider runs. */
export const DEV_OAUTH_DEFAULTS = {
  OAUTH_CLIENT_ID: 'funnel-crm-mcp-dev',
  OAUTH_AUDIENCE: 'funnel-crm-api',
  OAUTH_CLAIM_NAMESPACE: 'https://funnel-crm.local',
} as const;

export interface ResolvedIdentityProvider {
  /** Variables to add to the environment before the app is built (empty with an external IdP). */
  variables: Record<string, string>;
  /** Stops the development identity provider, if one was started. */
  close(): Promise<void>;
}

/**
 * With `IDP_URL` set, the configured identity provider is used as is. Without it outside
 * production, the development identity provider starts on loopback (`DEV_IDP_PORT`, or a free port when taken) and signs in
 * the development user from the database; production never gets here (validateEnv requires IDP_URL).
 */
export async function resolveIdentityProvider(
  env: EnvironmentVariables,
  databaseUrl: string,
  log: (line: string) => void,
): Promise<ResolvedIdentityProvider> {
  if (env.IDP_URL || env.NODE_ENV === 'production') return { variables: {}, close: async () => undefined };
  const settings = {
    OAUTH_CLIENT_ID: env.OAUTH_CLIENT_ID ?? DEV_OAUTH_DEFAULTS.OAUTH_CLIENT_ID,
    OAUTH_AUDIENCE: env.OAUTH_AUDIENCE ?? DEV_OAUTH_DEFAULTS.OAUTH_AUDIENCE,
    OAUTH_CLAIM_NAMESPACE: env.OAUTH_CLAIM_NAMESPACE ?? DEV_OAUTH_DEFAULTS.OAUTH_CLAIM_NAMESPACE,
  };
  // Loaded on demand: production, which never starts it, never loads oidc-provider either.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startDevIdp } = require('./dev-idp') as typeof import('./dev-idp');
  const start = (port: number) =>
    startDevIdp({
      port,
      clientId: settings.OAUTH_CLIENT_ID,
      audience: settings.OAUTH_AUDIENCE,
      claimNamespace: settings.OAUTH_CLAIM_NAMESPACE,
      findUser: databaseDevUser(databaseUrl, env.DEV_USER_COMPANY_ID),
    });
  // A busy port (a second local instance, a test run) should not stop development: take any free one.
  const idp = await start(env.DEV_IDP_PORT).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRINUSE') throw error;
    log(`DEV_IDP_PORT ${env.DEV_IDP_PORT} is in use; the development identity provider takes a free port`);
    return start(0);
  });
  log(`development identity provider at ${idp.url} (IDP_URL unset; never used in production)`);
  return { variables: { IDP_URL: idp.url, ...settings }, close: () => idp.close() };
}
