import { Controller, Delete, Get, Post, Req, Res, UseFilters, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { BearerAuth, CurrentCompany, Public } from '@app/auth';
import { DomainException } from '@app/core';
import { EndSessionDocs, McpDocs, METHOD_NOT_ALLOWED, OpenStreamDocs } from './mcp.docs';
import { McpExceptionFilter } from './mcp-exception.filter';
import { answerOutagesAsErrors } from './mcp-outage';
import { McpServerFactory } from './mcp-server.factory';

@ApiTags('MCP')
@UseFilters(McpExceptionFilter)
@Controller({ path: 'mcp', version: VERSION_NEUTRAL })
export class McpController {
  constructor(private readonly servers: McpServerFactory) {}

  @Post()
  @BearerAuth()
  @McpDocs()
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
  @OpenStreamDocs()
  openStream(@Res({ passthrough: true }) response: Response): never {
    return methodNotAllowed(response);
  }

  @Delete()
  @Public()
  @EndSessionDocs()
  endSession(@Res({ passthrough: true }) response: Response): never {
    return methodNotAllowed(response);
  }
}

function methodNotAllowed(response: Response): never {
  response.setHeader('Allow', 'POST');
  throw new DomainException(405, METHOD_NOT_ALLOWED);
}
