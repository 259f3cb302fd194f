import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { ApiErrorResponses, ERROR_SCHEMA, ErrorResponseDoc } from '@app/core';
import { ORIGIN_NOT_ALLOWED } from './origin/mcp-origin.middleware';

export const METHOD_NOT_ALLOWED =
  'Method not allowed: this MCP server is stateless, send JSON-RPC with POST /mcp';

const JSON_RPC_REQUEST = {
  type: 'object',
  required: ['jsonrpc', 'method'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { type: 'integer' },
    method: { type: 'string', example: 'tools/list' },
    params: { type: 'object' },
  },
};
const JSON_RPC_ERROR = {
  type: 'object',
  required: ['jsonrpc', 'error'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'integer' }, message: { type: 'string' } },
    },
  },
};

const POST_ONLY: ErrorResponseDoc = {
  description: 'Only POST is supported (header `Allow: POST`)',
  examples: [METHOD_NOT_ALLOWED],
};

export const McpDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'MCP endpoint (Streamable HTTP, stateless; revisions 2026-07-28 and 2025-11-25)',
      description:
        'JSON-RPC 2.0 messages of the Model Context Protocol. Send `Accept: application/json, text/event-stream`. ' +
        'A request carrying the 2026-07-28 `_meta` envelope is served by that revision (`server/discover`, `MCP-Protocol-Version`/`Mcp-Method`/`Mcp-Name` headers, cache hints); anything else by 2025-11-25 and older (`initialize`). ' +
        "Tools: list_workspaces, get_funnel, list_contacts, get_contact, create_contact, update_contact_value, delete_contact, get_chart_metrics, get_kpi_metrics, get_insight_metrics, get_step_funnel, search_contacts, upsert_contacts, update_contact, show_funnel_dashboard (with its MCP App, the resource ui://funnel-crm/dashboard.html); each acts for the token's company only, needs its scope (crm:read, crm:write or metrics:read) and answers structured content that matches its outputSchema, plus the same JSON as text. " +
        'Prompts: weekly_funnel_review, stalled_leads. Resource: funnel-crm://metrics/glossary. ' +
        'A domain error (unknown funnel, invalid field, ...) is a tool result with `isError: true`, not an HTTP error.',
    }),
    ApiBody({ description: 'A JSON-RPC request, notification or batch', schema: JSON_RPC_REQUEST }),
    ApiOkResponse({ description: 'The JSON-RPC response' }),
    ApiResponse({ status: 202, description: 'Accepted (notifications and responses carry no reply)' }),
    ApiErrorResponses({
      400: {
        description:
          'Malformed or too deeply nested JSON (the REST error body), a message that is not JSON-RPC, or a 2026-07-28 request whose headers disagree with its body (-32020) or whose version is not supported (-32022 with data.supported) (a JSON-RPC error)',
        schema: { oneOf: [{ $ref: `#/components/schemas/${ERROR_SCHEMA}` }, JSON_RPC_ERROR] },
      },
      403: {
        description:
          "A browser request from an origin that is not allowed (MCP_ALLOWED_ORIGINS), or a tool call the token's scopes do not cover " +
          '(`WWW-Authenticate: Bearer error="insufficient_scope", scope="<the tool\'s scopes>", resource_metadata="..."`)',
        examples: [ORIGIN_NOT_ALLOWED],
      },
      404: {
        description: 'A 2026-07-28 request for a removed or unknown method (JSON-RPC error -32601)',
        schema: JSON_RPC_ERROR,
      },
      406: {
        description: '`Accept` does not list both application/json and text/event-stream (a JSON-RPC error)',
        schema: JSON_RPC_ERROR,
      },
      415: { description: 'Content-Type is not application/json (a JSON-RPC error)', schema: JSON_RPC_ERROR },
      // Counted per bearer token, before the token is checked (one allowance per token, as per API key).
      429: {
        description: 'More than RATE_LIMIT_PER_MINUTE (default 100) requests a minute with this bearer token',
      },
    }),
  );

export const OpenStreamDocs = () =>
  applyDecorators(
    ApiOperation({ summary: 'Not supported (no server-initiated stream in stateless mode)' }),
    ApiErrorResponses({ 405: POST_ONLY }),
  );

export const EndSessionDocs = () =>
  applyDecorators(
    ApiOperation({ summary: 'Not supported (there are no sessions to end)' }),
    ApiErrorResponses({ 405: POST_ONLY }),
  );
