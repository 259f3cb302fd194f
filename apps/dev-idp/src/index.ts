import type { DevIdp, DevIdpOptions } from './dev-idp';

export type { DevIdp, DevIdpOptions } from './dev-idp';
export * from './dev-user';
export * from './resolve-identity-provider';

/**
 * Starts the development identity provider. oidc-provider is loaded only then: the production
 * service, which imports this library for resolveIdentityProvider, never loads it (47 MB resident).
 */
export function startDevIdp(options: DevIdpOptions): Promise<DevIdp> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startDevIdp: start } = require('./dev-idp') as typeof import('./dev-idp');
  return start(options);
}
