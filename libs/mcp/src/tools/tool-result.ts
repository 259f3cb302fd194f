import { Logger } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DomainException, isDatabaseUnavailable } from '@app/core';
import { OUTAGE_MARK } from '../mcp-outage';

const logger = new Logger('McpTools');

/**
 * Runs a tool body: its result becomes JSON text; a domain error (404, 400, ...) becomes a tool
 * error carrying the message the REST API would give, so the model can correct its call. Anything
 * else is logged and reported without internals.
 */
export async function toolResult(run: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return { content: [{ type: 'text', text: JSON.stringify(await run(), null, 2) }] };
  } catch (error) {
    if (error instanceof DomainException) {
      const details = error.details?.length ? `\n${error.details.map((d) => `- ${d}`).join('\n')}` : '';
      return { isError: true, content: [{ type: 'text', text: `${error.message}${details}` }] };
    }
    if (isDatabaseUnavailable(error)) {
      // Answered as a JSON-RPC error with Retry-After by the controller (see mcp-outage.ts).
      logger.warn('tool answered service unavailable: database unavailable');
      return {
        isError: true,
        content: [{ type: 'text', text: 'Service unavailable' }],
        _meta: { [OUTAGE_MARK]: true },
      };
    }
    logger.error('tool failed', error instanceof Error ? error.stack : String(error));
    return { isError: true, content: [{ type: 'text', text: 'Internal error' }] };
  }
}
