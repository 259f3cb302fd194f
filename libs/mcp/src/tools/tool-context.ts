import type { McpServer } from '@modelcontextprotocol/server';

/** What every tool registration gets: the server to add tools to and the token's company. */
export interface ToolContext {
  /** Each tool registered here must declare its scopes in TOOL_SCOPES (tool-scopes.ts). */
  server: McpServer;
  /** Every tool acts for this company only, exactly as an API key scopes REST. */
  companyId: string;
}
