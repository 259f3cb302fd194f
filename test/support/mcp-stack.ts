import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { startTestApp, TestApp } from './app';
import { startTokenIssuer, TestTokenIssuer } from './token-issuer';

export const MCP_AUDIENCE = 'https://api.funnel.example';
export const MCP_CLAIM_NAMESPACE = 'https://funnel.example';

/** The app with a test token issuer as its identity provider. */
export async function startMcpApp(): Promise<{ issuer: TestTokenIssuer; t: TestApp }> {
  const issuer = await startTokenIssuer({ audience: MCP_AUDIENCE });
  const t = await startTestApp({
    IDP_URL: issuer.url,
    OAUTH_CLIENT_ID: 'shared-client-id',
    OAUTH_AUDIENCE: MCP_AUDIENCE,
    OAUTH_CLAIM_NAMESPACE: MCP_CLAIM_NAMESPACE,
  });
  return { issuer, t };
}

/**
 * The official SDK client, signed in as a user of `companyId`, with the tools listed: from then on
 * the client checks every structured result against its tool's outputSchema.
 */
export async function connectMcpClient(
  t: TestApp,
  issuer: TestTokenIssuer,
  companyId: string,
  name: string,
): Promise<{ client: Client; tools: Tool[] }> {
  const token = await issuer.sign({
    [`${MCP_CLAIM_NAMESPACE}/user_metadata`]: { companyId, subscriptionId: 's' },
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return { client, tools: (await client.listTools()).tools };
}
