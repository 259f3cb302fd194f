import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { isStorableText, UNSTORABLE_TEXT_RULE } from '@app/core';
import type { AppConfigService } from '@app/core';
import { OAuthClient } from '../entities';
import { MAX_CLIENT_ID_LENGTH, MAX_CLIENT_NAME_LENGTH } from '../entities/oauth-client.entity';
import {
  ClientMetadataDocuments,
  ClientRejectedError,
  isLoopbackHttpUrl,
  metadataDocumentUrl,
  OAuthClientInfo,
} from './client-metadata-document';
import { OAuthClientsRepository } from './oauth-clients.repository';

// Schemes a redirect must never use: they run code or read local data in the browser.
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:']);

/**
 * An acceptable redirect URI for a registered client: absolute, no fragment; https, http on
 * loopback (RFC 8252 §7.3), or an app's private-use scheme (RFC 8252 §7.1).
 */
export function redirectUriAllowed(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (value.includes('#') || FORBIDDEN_SCHEMES.has(url.protocol)) return false;
  if (url.protocol === 'http:') return isLoopbackHttpUrl(url);
  return true;
}

/**
 * Whether a requested redirect URI matches a registered one: exactly, except that a loopback http
 * URI may come back on any port (RFC 8252 §7.3), since a native app listens on an ephemeral one.
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  let [a, b]: URL[] = [];
  try {
    [a, b] = [new URL(registered), new URL(requested)];
  } catch {
    return false;
  }
  if (!isLoopbackHttpUrl(a) || !isLoopbackHttpUrl(b) || requested.includes('#')) return false;
  return (
    a.hostname === b.hostname &&
    a.pathname === b.pathname &&
    a.search === b.search &&
    !b.username &&
    !b.password
  );
}

export const APPLICATION_TYPES = ['native', 'web'] as const;
export type ApplicationType = (typeof APPLICATION_TYPES)[number];

/**
 * Whether a redirect URI fits a client's `application_type` (OpenID Connect Dynamic Client
 * Registration §2, as SEP-837 asks): a `native` app comes back on loopback http or its own scheme,
 * a `web` app on https off loopback. Either way the URI must also pass redirectUriAllowed.
 */
export function redirectUriFits(value: string, type: ApplicationType): boolean {
  const url = new URL(value);
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (type === 'web') return url.protocol === 'https:' && !loopback;
  return isLoopbackHttpUrl(url) || !['http:', 'https:'].includes(url.protocol);
}

/** The type a set of redirect URIs implies when a client names none: undefined when they mix. */
export function impliedApplicationType(redirectUris: string[]): ApplicationType | undefined {
  return APPLICATION_TYPES.find((type) => redirectUris.every((uri) => redirectUriFits(uri, type)));
}

export interface ClientRegistrationInput {
  redirectUris: string[];
  clientName?: string;
}

/**
 * The clients of issuer mode: a Client ID Metadata Document URL (fetched and cached) or a client
 * registered here by Dynamic Client Registration, each with the redirect URIs it may use.
 */
@Injectable()
export class OAuthClientsService {
  private readonly documents: ClientMetadataDocuments;
  private readonly allowLoopbackDocuments: boolean;

  constructor(
    private readonly clients: OAuthClientsRepository,
    @Inject(ConfigService) config: AppConfigService,
  ) {
    // A loopback http document is for local clients and tests only, never in production.
    this.allowLoopbackDocuments = config.get('NODE_ENV', { infer: true }) !== 'production';
    this.documents = new ClientMetadataDocuments(this.allowLoopbackDocuments);
  }

  /** The client named by `clientId`, or ClientRejectedError saying why it cannot be used. */
  async resolve(clientId: string): Promise<OAuthClientInfo> {
    const documentUrl = metadataDocumentUrl(clientId, this.allowLoopbackDocuments);
    if (documentUrl) return this.documents.resolve(documentUrl);
    if (/^https?:/i.test(clientId))
      throw new ClientRejectedError('client_id is not a valid client metadata document URL');
    // No stored id holds such text, and PostgreSQL refuses it in a query.
    if (!isStorableText(clientId)) throw new ClientRejectedError(`client_id ${UNSTORABLE_TEXT_RULE}`);
    const registered = clientId.length <= MAX_CLIENT_ID_LENGTH ? await this.clients.findById(clientId) : null;
    if (!registered) throw new ClientRejectedError('unknown client_id');
    return {
      clientId: registered.id,
      clientName: registered.clientName ?? undefined,
      redirectUris: registered.redirectUris,
    };
  }

  async register(input: ClientRegistrationInput): Promise<OAuthClient> {
    return this.clients.insert({
      id: randomUUID(),
      clientName: input.clientName?.slice(0, MAX_CLIENT_NAME_LENGTH) ?? null,
      redirectUris: input.redirectUris,
    });
  }
}
