/** The environment's enumerations and how its text becomes typed values (env.validation.ts). */
export const NODE_ENVS = ['development', 'production', 'test'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];

/**
 * `proxy`: the identity provider is the authorization server, this service forwards authorize and
 * registration. `issuer`: this service is the authorization server its clients see (strict clients).
 */
export const OAUTH_MODES = ['proxy', 'issuer'] as const;
export type OAuthMode = (typeof OAUTH_MODES)[number];
export const UNSCOPED_TOKEN_POLICIES = ['full-access', 'refuse'] as const;
export type UnscopedTokenPolicy = (typeof UNSCOPED_TOKEN_POLICIES)[number];

export const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
export const toBool = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no', ''].includes(v)) return false;
  return value;
};
export const emptyToUndefined = ({ value }: { value: unknown }) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

export const URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };
