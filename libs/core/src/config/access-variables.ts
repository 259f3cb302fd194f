import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, IsUUID, Matches, Max, Min } from 'class-validator';
import {
  OAUTH_MODES,
  OAuthMode,
  UNSCOPED_TOKEN_POLICIES,
  UnscopedTokenPolicy,
  toInt,
  emptyToUndefined,
  URL_OPTIONS,
} from './env-values';
import { ServiceVariables } from './service-variables';

/** Sign-in: the identity provider, OAuth and MCP (docs/CONFIGURATION.md). */
export class AccessVariables extends ServiceVariables {
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl(URL_OPTIONS, { message: 'IDP_URL must be an http(s) URL of the identity provider tenant' })
  IDP_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OAUTH_CLIENT_ID?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OAUTH_AUDIENCE?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OAUTH_CONNECTION?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OAUTH_CLAIM_NAMESPACE?: string;

  /** Defaults to `proxy` in production and `issuer` elsewhere (see validateEnv). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(OAUTH_MODES, { message: 'OAUTH_MODE must be proxy or issuer' })
  OAUTH_MODE!: OAuthMode;

  /**
   * What a bearer token carrying none of the MCP scopes may do (identity providers that issue none).
   * Defaults to `refuse` in production issuer mode and `full-access` elsewhere (see validateEnv).
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(UNSCOPED_TOKEN_POLICIES, { message: 'MCP_UNSCOPED_TOKENS must be full-access or refuse' })
  MCP_UNSCOPED_TOKENS!: UnscopedTokenPolicy;

  /** Origins allowed to call /mcp, comma-separated; unset = the base URL's (plus loopback outside production). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^\s*https?:\/\/[^\s,/]+\s*(,\s*https?:\/\/[^\s,/]+\s*)*$/, {
    message: 'MCP_ALLOWED_ORIGINS must be a comma-separated list of origins like https://app.example.com',
  })
  MCP_ALLOWED_ORIGINS?: string;

  // The bundled development identity provider (started only when IDP_URL is unset outside production).
  @Transform(toInt)
  @IsInt({ message: 'DEV_IDP_PORT must be an integer between 0 and 65535' })
  @Min(0, { message: 'DEV_IDP_PORT must be an integer between 0 and 65535' })
  @Max(65535, { message: 'DEV_IDP_PORT must be an integer between 0 and 65535' })
  DEV_IDP_PORT: number = 3001;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUUID('all', { message: 'DEV_USER_COMPANY_ID must be a company id (uuid)' })
  DEV_USER_COMPANY_ID?: string;
}
