import { Controller, Delete, Get, Inject, Post, Req, Res, UseFilters, VERSION_NEUTRAL } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiTags } from '@nestjs/swagger';
import { toWebRequest } from '@modelcontextprotocol/node';
import {
  AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  McpHttpHandler,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';
import {
  BearerAuth,
  bearerResourceMetadataUrl,
  CurrentToken,
  grantedMcpScopes,
  Public,
  TokenPrincipal,
} from '@app/auth';
import { AppConfigService, DomainException, OUTAGE_RETRY_AFTER_SECONDS } from '@app/core';
import { EndSessionDocs, McpDocs, METHOD_NOT_ALLOWED, OpenStreamDocs } from './mcp.docs';
import { McpExceptionFilter } from './mcp-exception.filter';
import { outageInstead } from './mcp-outage';
import { McpServerFactory } from './mcp-server.factory';

/**
 * POST /mcp serves both protocol eras, stateless, on any replica: a request carrying the
 * 2026-07-28 `_meta` envelope goes to the SDK's per-request handler (`server/discover`, header
 * checks, cache hints, `resultType`); anything else is 2025-era traffic (`initialize`, ...), served
 * by a fresh server and transport that answer JSON, as before.
 */
@ApiTags('MCP')
@UseFilters(McpExceptionFilter)
@Controller({ path: 'mcp', version: VERSION_NEUTRAL })
export class McpController {
  private readonly modern: McpHttpHandler;

  constructor(
    private readonly servers: McpServerFactory,
    @Inject(ConfigService) private readonly config: AppConfigService,
  ) {
    this.modern = createMcpHandler(({ authInfo }) => this.servers.create(companyOf(authInfo)), {
      legacy: 'reject',
    });
  }

  @Post()
  @BearerAuth()
  @McpDocs()
  async handle(
    @CurrentToken() token: TokenPrincipal,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const authInfo = this.authInfo(token, request);
    const body: unknown = request.body;
    const webRequest = await toWebRequest(request, body);
    const answer = (await isLegacyRequest(webRequest, body))
      ? await this.serveLegacy(webRequest, authInfo, body)
      : await this.modern.fetch(webRequest, { authInfo, parsedBody: body });
    await send(answer, response);
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

  /** 2025-era traffic: a new server and transport for this one request, no session id, JSON answers. */
  private async serveLegacy(webRequest: globalThis.Request, authInfo: AuthInfo, body: unknown) {
    const server = this.servers.create(companyOf(authInfo));
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(webRequest, { authInfo, parsedBody: body });
    } finally {
      void server.close();
    }
  }

  /** What the SDK knows of the token: its company, and the scopes the tools' challenges check. */
  private authInfo(token: TokenPrincipal, request: Request): AuthInfo {
    return {
      token: '',
      clientId: token.subject ?? '',
      scopes: grantedMcpScopes(token.scopes, this.config.get('MCP_UNSCOPED_TOKENS', { infer: true })),
      resourceMetadataUrl: bearerResourceMetadataUrl(request, this.config),
      extra: { companyId: token.companyId },
    };
  }
}

function companyOf(authInfo: AuthInfo | undefined): string {
  const companyId = authInfo?.extra?.companyId;
  if (typeof companyId !== 'string') throw new Error('MCP request without a verified company');
  return companyId;
}

/** Writes the SDK's answer, turning a database outage met by a tool into a 503 (see mcp-outage.ts). */
async function send(answer: globalThis.Response, response: Response): Promise<void> {
  const text = await answer.text();
  let status = answer.status;
  let body = text;
  if (answer.headers.get('content-type')?.startsWith('application/json') && text) {
    const outage = outageInstead(JSON.parse(text));
    if (outage) {
      status = 503;
      body = JSON.stringify(outage);
      response.setHeader('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS));
    }
  }
  answer.headers.forEach((value, name) => {
    if (name !== 'content-length') response.setHeader(name, value);
  });
  response.status(status).send(body);
}

function methodNotAllowed(response: Response): never {
  response.setHeader('Allow', 'POST');
  throw new DomainException(405, METHOD_NOT_ALLOWED);
}
