import { McpServer } from '@modelcontextprotocol/server';
import { enforceToolScopes, TOOL_SCOPES } from './tool-scopes';

describe(enforceToolScopes.name, () => {
  it('refuses to register a tool that declares no scope', () => {
    const server = new McpServer({ name: 't', version: '1' });
    enforceToolScopes(server);
    expect(() =>
      server.registerTool('undeclared_tool', { description: 'x' }, () => ({ content: [] })),
    ).toThrow('MCP tool undeclared_tool declares no scope in TOOL_SCOPES');
    expect(() =>
      server.registerTool('list_workspaces', { description: 'x' }, () => ({ content: [] })),
    ).not.toThrow();
  });

  it('gives reads crm:read, writes crm:write and metrics metrics:read', () => {
    expect(TOOL_SCOPES.get_contact).toEqual(['crm:read']);
    expect(TOOL_SCOPES.delete_contact).toEqual(['crm:write']);
    expect(TOOL_SCOPES.get_kpi_metrics).toEqual(['metrics:read']);
  });
});
