import { Injectable } from '@nestjs/common';
import { ClientRegistrationError } from '../client-registration-error.filter';
import { requestedRedirectUris } from '../oauth-documents';
import { OAuthProtocolError } from '../oauth-protocol-error';
import {
  APPLICATION_TYPES,
  ApplicationType,
  impliedApplicationType,
  OAuthClientsService,
  redirectUriAllowed,
  redirectUriFits,
} from './oauth-clients.service';

/** Frameworks register a URI per port or host they may run on; 32 leaves room (RFC 7591 sets no limit). */
export const MAX_REDIRECT_URIS = 32;
const MAX_URI_LENGTH = 2000;

/** Issuer mode's Dynamic Client Registration: a client id of its own per registration. */
@Injectable()
export class IssuerRegistrationService {
  constructor(private readonly clients: OAuthClientsService) {}

  async register(body: unknown) {
    const redirectUris = requestedRedirectUris(body);
    if (!redirectUris) throw new ClientRegistrationError();
    if (redirectUris.length > MAX_REDIRECT_URIS)
      throw new OAuthProtocolError('invalid_redirect_uri', `at most ${MAX_REDIRECT_URIS} redirect_uris`);
    const refused = redirectUris.find((uri) => uri.length > MAX_URI_LENGTH || !redirectUriAllowed(uri));
    if (refused !== undefined)
      throw new OAuthProtocolError(
        'invalid_redirect_uri',
        `${refused.slice(0, 200)} is not an allowed redirect URI (https, http on loopback, or an app scheme; no fragment)`,
      );
    const requested = body as {
      client_name?: unknown;
      token_endpoint_auth_method?: unknown;
      application_type?: unknown;
    };
    const applicationType = declaredApplicationType(requested.application_type, redirectUris);
    // A request for a confidential client (client_secret_post, client_secret_basic, ...) is
    // registered as a public one: the answer says `none` and no secret, and the client follows it
    // (RFC 7591 §3.2.1 lets the server replace requested metadata).
    if (
      requested.token_endpoint_auth_method !== undefined &&
      typeof requested.token_endpoint_auth_method !== 'string'
    )
      throw new OAuthProtocolError('invalid_client_metadata', 'token_endpoint_auth_method must be a string');
    const clientName = typeof requested.client_name === 'string' ? requested.client_name : undefined;
    const client = await this.clients.register({ redirectUris, clientName });
    return {
      client_id: client.id,
      client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
      client_name: client.clientName ?? clientName ?? 'MCP client',
      redirect_uris: client.redirectUris,
      ...(applicationType ? { application_type: applicationType } : {}),
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
}

/**
 * The client's application_type (SEP-837): a client that names one gets exactly that type's
 * redirects, else invalid_redirect_uri; one that names none (clients from before SEP-837) keeps
 * the general rule, and is answered the type its redirect URIs imply, if they agree on one.
 */
function declaredApplicationType(value: unknown, redirectUris: string[]): ApplicationType | undefined {
  if (value === undefined) return impliedApplicationType(redirectUris);
  if (!APPLICATION_TYPES.includes(value as ApplicationType))
    throw new OAuthProtocolError('invalid_client_metadata', 'application_type must be native or web');
  const type = value as ApplicationType;
  const misfit = redirectUris.find((uri) => !redirectUriFits(uri, type));
  if (misfit !== undefined)
    throw new OAuthProtocolError(
      'invalid_redirect_uri',
      type === 'web'
        ? `${misfit.slice(0, 200)} is not an https redirect URI off loopback, as a web application needs`
        : `${misfit.slice(0, 200)} is not a loopback or app-scheme redirect URI, as a native application needs`,
    );
  return type;
}
