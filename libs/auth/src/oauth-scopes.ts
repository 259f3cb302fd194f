import type { UnscopedTokenPolicy } from '@app/core';
import type { Permission } from './entities/api-key.entity';

/**
 * The OAuth scopes of the MCP endpoint: the API-key permissions its tools need, under the same
 * names, so a token and a key that may do the same thing say so the same way.
 */
export const MCP_SCOPES = ['crm:read', 'crm:write', 'metrics:read'] as const satisfies readonly Permission[];
export type McpScope = (typeof MCP_SCOPES)[number];

/**
 * The MCP scopes a verified token grants. A token naming any of them gets exactly those; one naming
 * none (an identity provider that issues none of them) gets every scope under `full-access` and
 * none under `refuse` (MCP_UNSCOPED_TOKENS).
 */
export function grantedMcpScopes(tokenScopes: readonly string[], policy: UnscopedTokenPolicy): McpScope[] {
  const granted = MCP_SCOPES.filter((scope) => tokenScopes.includes(scope));
  if (granted.length || policy === 'refuse') return granted;
  return [...MCP_SCOPES];
}

/** The scopes of a JWT payload: `scope` (RFC 9068, space-separated) or `scp` (a list, as some providers send). */
export function tokenScopesOf(payload: Record<string, unknown>): string[] {
  const { scope, scp } = payload;
  if (typeof scope === 'string') return scope.split(' ').filter(Boolean);
  if (Array.isArray(scp)) return scp.filter((value): value is string => typeof value === 'string');
  if (typeof scp === 'string') return scp.split(' ').filter(Boolean);
  return [];
}
