import { ApiProperty } from '@nestjs/swagger';
import { MCP_CLIENT_NAME, REDIRECT_URIS_ERROR } from '../oauth-documents';

export class ClientRegistrationRequestDto {
  @ApiProperty({
    description: 'Where the identity provider may send the authorization code; a non-empty array of strings',
    example: ['http://localhost:6274/oauth/callback'],
    minItems: 1,
    type: [String],
  })
  redirect_uris: string[];
}

export class ClientRegistrationDto {
  @ApiProperty({
    description: 'The single shared client id (OAUTH_CLIENT_ID), the same for every registration',
    example: 'funnel-crm-mcp',
  })
  client_id: string;

  @ApiProperty({ example: MCP_CLIENT_NAME })
  client_name: string;

  @ApiProperty({ description: 'Echo of the request', example: ['http://localhost:6274/oauth/callback'] })
  redirect_uris: string[];

  @ApiProperty({ example: ['authorization_code', 'refresh_token'] })
  grant_types: string[];

  @ApiProperty({ example: ['code'] })
  response_types: string[];

  @ApiProperty({ description: 'Public client: no secret is issued', example: 'none' })
  token_endpoint_auth_method: string;
}

export class ClientRegistrationErrorDto {
  @ApiProperty({ example: REDIRECT_URIS_ERROR })
  error: string;
}
