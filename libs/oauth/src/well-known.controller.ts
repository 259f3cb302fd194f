import { Controller, Get, Req, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '@app/auth';
import { ApiErrorResponse } from '@app/core';
import { AuthorizationServerMetadataDto, ProtectedResourceMetadataDto } from './dto/oauth-metadata.dto';
import { OAuthConfigService } from './oauth-config.service';
import { authorizationServerMetadata, issuerMetadata, protectedResourceMetadata } from './oauth-documents';

@ApiTags('OAuth')
@Controller({ path: '.well-known', version: VERSION_NEUTRAL })
export class WellKnownController {
  constructor(private readonly oauth: OAuthConfigService) {}

  @Get('oauth-protected-resource')
  @Public()
  @ApiOperation({
    summary: 'Protected-resource metadata (RFC 9728)',
    description:
      'Where MCP clients start after a 401 from POST /mcp. The base URL is `BASE_URL`, or the request ' +
      'scheme and host (`X-Forwarded-Proto`/`X-Forwarded-Host` only with `TRUST_PROXY=true`).',
  })
  @ApiOkResponse({ type: ProtectedResourceMetadataDto })
  protectedResource(@Req() request: Request): ProtectedResourceMetadataDto {
    return protectedResourceMetadata(this.oauth.baseUrl(request));
  }

  @Get('oauth-protected-resource/mcp')
  @Public()
  @ApiOperation({
    summary: 'Protected-resource metadata of the MCP endpoint (RFC 9728 §3.1)',
    description:
      'The same document for the resource `{base_url}/mcp`, at the path RFC 9728 derives from that URL; ' +
      'in issuer mode the 401 of POST /mcp points here.',
  })
  @ApiOkResponse({ type: ProtectedResourceMetadataDto })
  mcpProtectedResource(@Req() request: Request): ProtectedResourceMetadataDto {
    const baseUrl = this.oauth.baseUrl(request);
    return protectedResourceMetadata(baseUrl, `${baseUrl}/mcp`);
  }

  @Get('oauth-authorization-server')
  @Public()
  @ApiOperation({
    summary: 'Authorization-server metadata (RFC 8414)',
    description:
      'proxy mode: authorization and registration go through this service; tokens and signing keys come ' +
      'from the identity provider (`IDP_URL`), which is the issuer. issuer mode: this service is the issuer ' +
      'with its own authorize, token and registration endpoints.',
  })
  @ApiOkResponse({ type: AuthorizationServerMetadataDto })
  @ApiErrorResponse(
    503,
    'No identity provider is configured (IDP_URL)',
    'OAuth is not configured on this server',
  )
  authorizationServer(@Req() request: Request): AuthorizationServerMetadataDto {
    const settings = this.oauth.settings();
    const baseUrl = this.oauth.baseUrl(request);
    return this.oauth.mode === 'issuer'
      ? issuerMetadata(baseUrl)
      : authorizationServerMetadata(baseUrl, settings);
  }
}
