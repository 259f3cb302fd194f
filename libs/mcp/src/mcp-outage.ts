import type { Response } from 'express';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { OUTAGE_RETRY_AFTER_SECONDS } from '@app/core';

/** Marks a tool result that failed because the database is unavailable (see toolResult). */
export const OUTAGE_MARK = 'funnel-crm/service-unavailable';

// JSON-RPC "server error" range; the MCP SDK reserves -32000 and -32001 for its own conditions.
export const SERVICE_UNAVAILABLE_CODE = -32003;

/** The JSON-RPC error a request gets when the database is unavailable. */
export function outageError(id: string | number | null): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id: id as string | number,
    error: {
      code: SERVICE_UNAVAILABLE_CODE,
      message: 'Service unavailable',
      data: { status: 503, retryAfter: OUTAGE_RETRY_AFTER_SECONDS },
    },
  };
}

/**
 * The SDK turns every error a tool throws into a tool result, but a database outage is not the
 * model's mistake to correct: the marked result leaves as a JSON-RPC error, and the HTTP answer
 * carries Retry-After as REST's 503 does.
 */
export function answerOutagesAsErrors(transport: StreamableHTTPServerTransport, response: Response): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const result = (message as { result?: { _meta?: Record<string, unknown> } }).result;
    if (result?._meta?.[OUTAGE_MARK] && 'id' in message) {
      if (!response.headersSent) response.setHeader('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS));
      return send(outageError(message.id ?? null), options);
    }
    return send(message, options);
  };
}
