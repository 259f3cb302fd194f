import { z } from 'zod';

/**
 * The funnelId argument every funnel tool takes. On 2026-07-28 the client also sends it as the
 * `Mcp-Param-Funnel-Id` header (SEP-2243), so a gateway can route or limit by funnel without
 * reading the body; the SDK refuses a request whose header and argument disagree.
 */
export const funnelIdInput = z.string().meta({
  description: 'The funnel (campaign) id from list_workspaces',
  'x-mcp-header': 'Funnel-Id',
});
