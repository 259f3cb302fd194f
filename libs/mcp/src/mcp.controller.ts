import {
  Controller,
  Delete,
  Get,
  HttpException,
  HttpStatus,
  Post,
  Req,
  Res,
  UseFilters,
  VERSION_NEUTRAL,
} from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { BearerAuth, CurrentCompany, Public } from '@app/auth';
import { ApiErrorResponse, ERROR_SCHEMA } from '@app/core';
import { McpExceptionFilter } from './mcp-exception.filter';
import { answerOutagesAsErrors } from './mcp-outage';
import { McpServerFactory } from './mcp-server.factory';

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

const METHOD_NOT_ALLOWED = 'Method not allowed: this MCP server is stateless, send JSON-RPC with POST /mcp';

@ApiTags('MCP')
@UseFilters(McpExceptionFilter)
@Controller({ path: 'mcp', version: VERSION_NEUTRAL })
export class McpController {
  constructor(private readonly servers: McpServerFactory) {}

  @Post()
  @BearerAuth()
  @ApiOperation({
    summary: 'MCP endpoint (Streamable HTTP, stateless, JSON responses)',
    description:
      'JSON-RPC 2.0 messages of the Model Context Protocol. Send `Accept: application/json, text/event-stream`. ' +
      "Tools: list_workspaces, get_funnel, list_contacts, get_contact, create_contact, update_contact_value, get_chart_metrics, get_kpi_metrics, get_insight_metrics; each acts for the token's company only and answers structured content that matches its outputSchema, plus the same JSON as text. " +
      'A domain error (unknown funnel, invalid field, ...) is a tool result with `isError: true`, not an HTTP error.',
  })
  @ApiBody({ description: 'A JSON-RPC request, notification or batch', schema: JSON_RPC_REQUEST })
  @ApiResponse({
    status: 400,
    description:
      'Malformed or too deeply nested JSON (the REST error body), or a message that is not JSON-RPC (a JSON-RPC error)',
    content: {
      'application/json': {
        schema: { oneOf: [{ $ref: `#/components/schemas/${ERROR_SCHEMA}` }, JSON_RPC_ERROR] },
      },
    },
  })
  @ApiOkResponse({ description: 'The JSON-RPC response' })
  @ApiResponse({ status: 202, description: 'Accepted (notifications and responses carry no reply)' })
  async handle(
    @CurrentCompany() companyId: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    // Stateless: a new server and transport per request, no session id.
    const server = this.servers.create(companyId);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    answerOutagesAsErrors(transport, response);
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, request.body);
  }

  @Get()
  @Public()
  @ApiOperation({ summary: 'Not supported (no server-initiated stream in stateless mode)' })
  @ApiErrorResponse(405, 'Only POST is supported (header `Allow: POST`)', METHOD_NOT_ALLOWED)
  openStream(@Res({ passthrough: true }) response: Response): never {
    return methodNotAllowed(response);
  }

  @Delete()
  @Public()
  @ApiOperation({ summary: 'Not supported (there are no sessions to end)' })
  @ApiErrorResponse(405, 'Only POST is supported (header `Allow: POST`)', METHOD_NOT_ALLOWED)
  endSession(@Res({ passthrough: true }) response: Response): never {
    return methodNotAllowed(response);
  }
}

function methodNotAllowed(response: Response): never {
  response.setHeader('Allow', 'POST');
  throw new HttpException(METHOD_NOT_ALLOWED, HttpStatus.METHOD_NOT_ALLOWED);
}
