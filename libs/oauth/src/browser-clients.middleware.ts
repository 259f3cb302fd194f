import type { NextFunction, Request, Response } from 'express';

/**
 * CORS for the routes browser-based MCP clients (e.g. MCP Inspector) call with fetch: discovery,
 * registration and POST /mcp. No cookies are involved, so any origin may read the answers; the
 * bearer token is what authorizes.
 */
export function allowBrowserClients(request: Request, response: Response, next: NextFunction): void {
  response.setHeader('Access-Control-Allow-Origin', '*');
  response.setHeader(
    'Access-Control-Expose-Headers',
    'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version',
  );
  if (request.method !== 'OPTIONS') return next();
  response.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
  response.setHeader(
    'Access-Control-Allow-Headers',
    'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID',
  );
  response.setHeader('Access-Control-Max-Age', '86400');
  response.status(204).end();
}
