import { McpServer, requireScopes } from '@modelcontextprotocol/server';
import type { McpScope } from '@app/auth';

/**
 * The scopes each tool needs, as the REST route doing the same needs those API-key permissions:
 * reads `crm:read`, writes `crm:write`, metrics `metrics:read`. A tool missing here cannot be
 * registered (deny by default); a token without them is refused with 403 `insufficient_scope`.
 */
export const TOOL_SCOPES: Record<string, readonly [McpScope, ...McpScope[]]> = {
  list_workspaces: ['crm:read'],
  get_funnel: ['crm:read'],
  list_contacts: ['crm:read'],
  get_contact: ['crm:read'],
  create_contact: ['crm:write'],
  update_contact_value: ['crm:write'],
  delete_contact: ['crm:write'],
  search_contacts: ['crm:read'],
  update_contact: ['crm:write'],
  upsert_contacts: ['crm:write'],
  get_chart_metrics: ['metrics:read'],
  get_kpi_metrics: ['metrics:read'],
  get_insight_metrics: ['metrics:read'],
  get_step_funnel: ['metrics:read'],
  show_funnel_dashboard: ['metrics:read'],
};

/**
 * Makes every tool registered on `server` carry the scope challenge of its TOOL_SCOPES entry: when
 * the token lacks one of them, the SDK answers HTTP 403 with `WWW-Authenticate: Bearer
 * error="insufficient_scope", scope="<the tool's scopes>"` and the resource metadata, so the client
 * can ask for them and try again (SEP-2350). A tool without an entry throws at registration, so a
 * new tool cannot slip in without a scope.
 */
export function enforceToolScopes(server: McpServer): void {
  const register = server.registerTool.bind(server) as (...args: unknown[]) => unknown;
  server.registerTool = ((name: string, config: object, callback: unknown) => {
    const scopes = TOOL_SCOPES[name];
    if (!scopes) throw new Error(`MCP tool ${name} declares no scope in TOOL_SCOPES`);
    return register(name, { ...config, scopeChallenge: requireScopes(...scopes) }, callback);
  }) as McpServer['registerTool'];
}
