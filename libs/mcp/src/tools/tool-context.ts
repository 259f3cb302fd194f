import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

/** What every tool registration gets: the server to add tools to and the token's company. */
export interface ToolContext {
  server: McpServer;
  /** Every tool acts for this company only, exactly as an API key scopes REST. */
  companyId: string;
}
