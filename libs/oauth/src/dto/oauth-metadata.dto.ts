import { ApiProperty } from '@nestjs/swagger';

export class ProtectedResourceMetadataDto {
  @ApiProperty({ description: 'The service base URL ({base_url})', example: 'https://api.example.com' })
  resource: string;

  @ApiProperty({
    description: 'The same base URL: this service fronts the authorization server',
    example: ['https://api.example.com'],
  })
  authorization_servers: string[];

  @ApiProperty({ example: ['offline_access'] })
  scopes_supported: string[];

  @ApiProperty({ example: ['header'] })
  bearer_methods_supported: string[];
}

export class AuthorizationServerMetadataDto {
  @ApiProperty({
    description:
      'proxy mode: the identity provider tenant URL with one trailing slash ({idp_url}/); issuer mode: {base_url}',
    example: 'https://tenant.idp.example/',
  })
  issuer: string;

  @ApiProperty({
    description: '{base_url}/oauth/authorize',
    example: 'https://api.example.com/oauth/authorize',
  })
  authorization_endpoint: string;

  @ApiProperty({
    description: 'proxy mode: {idp_url}/oauth/token; issuer mode: {base_url}/oauth/token',
    example: 'https://tenant.idp.example/oauth/token',
  })
  token_endpoint: string;

  @ApiProperty({
    description: 'proxy mode only: {idp_url}/.well-known/jwks.json',
    example: 'https://tenant.idp.example/.well-known/jwks.json',
    required: false,
  })
  jwks_uri?: string;

  @ApiProperty({
    description: '{base_url}/oauth/register',
    example: 'https://api.example.com/oauth/register',
  })
  registration_endpoint: string;

  @ApiProperty({
    description: 'issuer mode only: {base_url}/oauth/revoke (RFC 7009)',
    example: 'https://api.example.com/oauth/revoke',
    required: false,
  })
  revocation_endpoint?: string;

  @ApiProperty({ description: 'issuer mode only: public clients', example: ['none'], required: false })
  revocation_endpoint_auth_methods_supported?: string[];

  @ApiProperty({ example: ['code'] })
  response_types_supported: string[];

  @ApiProperty({ example: ['authorization_code', 'refresh_token'] })
  grant_types_supported: string[];

  @ApiProperty({ description: 'Public clients, no secret', example: ['none'] })
  token_endpoint_auth_methods_supported: string[];

  @ApiProperty({ description: 'PKCE is required', example: ['S256'] })
  code_challenge_methods_supported: string[];

  @ApiProperty({ example: ['offline_access'] })
  scopes_supported: string[];

  @ApiProperty({ description: 'issuer mode only', example: ['query'], required: false })
  response_modes_supported?: string[];

  @ApiProperty({
    description: 'issuer mode only: every authorization response carries `iss` (RFC 9207)',
    required: false,
  })
  authorization_response_iss_parameter_supported?: boolean;

  @ApiProperty({
    description: 'issuer mode only: an https client metadata URL may be the client_id',
    required: false,
  })
  client_id_metadata_document_supported?: boolean;
}
