import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiErrorResponses } from '@app/core';
import { AuthorizationServerMetadataDto, ProtectedResourceMetadataDto } from './dto/oauth-metadata.dto';
import { NOT_CONFIGURED } from './oauth.docs';

export const ProtectedResourceDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Protected-resource metadata (RFC 9728)',
      description:
        'Where MCP clients start after a 401 from POST /mcp. The base URL is `BASE_URL`, or the request ' +
        'scheme and host (`X-Forwarded-Proto`/`X-Forwarded-Host` only with `TRUST_PROXY=true`).',
    }),
    ApiOkResponse({ type: ProtectedResourceMetadataDto }),
  );

export const McpProtectedResourceDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Protected-resource metadata of the MCP endpoint (RFC 9728 §3.1)',
      description:
        'The same document for the resource `{base_url}/mcp`, at the path RFC 9728 derives from that URL; ' +
        'in issuer mode the 401 of POST /mcp points here.',
    }),
    ApiOkResponse({ type: ProtectedResourceMetadataDto }),
  );

export const AuthorizationServerDocs = () =>
  applyDecorators(
    ApiOperation({
      summary: 'Authorization-server metadata (RFC 8414)',
      description:
        'proxy mode: authorization and registration go through this service; tokens and signing keys come ' +
        'from the identity provider (`IDP_URL`), which is the issuer. issuer mode: this service is the issuer ' +
        'with its own authorize, token and registration endpoints.',
    }),
    ApiOkResponse({ type: AuthorizationServerMetadataDto }),
    ApiErrorResponses({ 503: NOT_CONFIGURED }),
  );
