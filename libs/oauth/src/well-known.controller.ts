import { Controller, Get, Req, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '@app/auth';
import { AuthorizationServerMetadataDto, ProtectedResourceMetadataDto } from './dto/oauth-metadata.dto';
import { OAuthConfigService } from './oauth-config.service';
import {
  authorizationServerMetadata,
  ISSUER_RESOURCE_SCOPES,
  issuerMetadata,
  protectedResourceMetadata,
  SCOPES_SUPPORTED,
} from './oauth-documents';
import { AuthorizationServerDocs, McpProtectedResourceDocs, ProtectedResourceDocs } from './well-known.docs';

@ApiTags('OAuth')
@Controller({ path: '.well-known', version: VERSION_NEUTRAL })
export class WellKnownController {
  constructor(private readonly oauth: OAuthConfigService) {}

  @Get('oauth-protected-resource')
  @Public()
  @ProtectedResourceDocs()
  protectedResource(@Req() request: Request): ProtectedResourceMetadataDto {
    return protectedResourceMetadata(this.oauth.baseUrl(request), undefined, this.resourceScopes());
  }

  @Get('oauth-protected-resource/mcp')
  @Public()
  @McpProtectedResourceDocs()
  mcpProtectedResource(@Req() request: Request): ProtectedResourceMetadataDto {
    const baseUrl = this.oauth.baseUrl(request);
    return protectedResourceMetadata(baseUrl, `${baseUrl}/mcp`, this.resourceScopes());
  }

  private resourceScopes(): string[] {
    return this.oauth.mode === 'issuer' ? ISSUER_RESOURCE_SCOPES : SCOPES_SUPPORTED;
  }

  @Get('oauth-authorization-server')
  @Public()
  @AuthorizationServerDocs()
  authorizationServer(@Req() request: Request): AuthorizationServerMetadataDto {
    const settings = this.oauth.settings();
    const baseUrl = this.oauth.baseUrl(request);
    return this.oauth.mode === 'issuer'
      ? issuerMetadata(baseUrl)
      : authorizationServerMetadata(baseUrl, settings);
  }
}
