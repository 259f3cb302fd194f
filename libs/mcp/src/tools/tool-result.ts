import { Logger } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { DomainException, isDatabaseUnavailable } from '@app/core';
import { OUTAGE_MARK } from '../mcp-outage';

const logger = new Logger('McpTools');

/**
 * Runs a tool body: its result is the structured content (matching the tool's outputSchema) and,
 * for clients that read text only, the same JSON as compact text. A domain error (404, 400, ...)
 * becomes a tool error carrying the message the REST API would give, each problem once, so the
 * model can correct its call. Anything else is logged and reported without internals.
 */
export async function toolResult(run: () => Promise<object>): Promise<CallToolResult> {
  try {
    const result = await run();
    return {
      structuredContent: result as Record<string, unknown>,
      content: [{ type: 'text', text: JSON.stringify(result) }],
    };
  } catch (error) {
    if (error instanceof DomainException)
      return { isError: true, content: [{ type: 'text', text: problemText(error) }] };
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

/** The message, then every other problem of the details as a list; the message is usually the first of them. */
function problemText(error: DomainException): string {
  const [first, ...others] = [...new Set([error.message, ...(error.details ?? [])])];
  return [first, ...others.map((problem) => `- ${problem}`)].join('\n');
}
