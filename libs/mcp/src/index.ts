export * from './mcp-server.factory';
export * from './mcp.module';
