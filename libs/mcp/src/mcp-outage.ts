import type { JSONRPCMessage } from '@modelcontextprotocol/server';
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

type Answer = { id?: string | number | null; result?: { _meta?: Record<string, unknown> } };

/**
 * The SDK turns every error a tool throws into a tool result, but a database outage is not the
 * model's mistake to correct: a JSON-RPC answer (or batch) holding a marked result leaves as the
 * outage error instead, which the controller sends as 503 with Retry-After, as REST does.
 * Undefined when the answer holds no marked result.
 */
export function outageInstead(answer: unknown): unknown {
  const messages = (Array.isArray(answer) ? answer : [answer]) as Answer[];
  if (!messages.some((message) => message?.result?._meta?.[OUTAGE_MARK])) return undefined;
  const replaced = messages.map((message) =>
    message?.result?._meta?.[OUTAGE_MARK] ? outageError(message.id ?? null) : message,
  );
  return Array.isArray(answer) ? replaced : replaced[0];
}
