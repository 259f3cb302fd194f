import { BadRequestException, Injectable } from '@nestjs/common';
import { AuthorizationRepository } from './authorization.repository';
import { ConsentRepository } from './consent.repository';
import { consentPage } from './consent-page';
import { OAuthClientsService } from './oauth-clients.service';
import { hashSecret, openWithCode, randomSecret, sealWithCode } from './oauth-secrets';

/** RFC 6749 §4.1.2: short-lived; a minute is plenty for a client's code exchange. */
export const CODE_TTL_MS = 60_000;
/** Long enough to read the page; the provider's tokens wait no longer. */
const CONSENT_TTL_MS = 10 * 60_000;
export const CONSENT_PATH = '/oauth/consent';

/** What the client asked for and where it waits, as kept while the user signs in and consents. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  clientState: string | null;
  codeChallenge: string;
  scope: string | null;
  issuer: string;
}

/** The browser's next step after sign-in: back to the client, or the consent page first. */
export type SignInOutcome =
  | { redirect: string }
  | {
      page: string;
      cookie: { name: string; value: string; path: string; maxAgeMs: number; secure: boolean };
    };

const clientRedirect = (redirectUri: string, params: Record<string, string | null | undefined>) => {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value) url.searchParams.append(name, value);
  return url.toString();
};

/** A redirect to the client with `params`, its `state` and our `iss` (RFC 9207). */
export const backToClient = (request: AuthorizationRequest, params: Record<string, string | undefined>) =>
  clientRedirect(request.redirectUri, { ...params, state: request.clientState, iss: request.issuer });

const scopesOf = (scope: string | null) => [...new Set((scope ?? '').split(' ').filter(Boolean))];

/** The consent cookie of one pending consent: several sign-ins may wait in one browser. */
const cookieName = (tokenHash: string) => `oauth_consent_${tokenHash.slice(0, 16)}`;

/** The `sub` of a JWT access token the provider just gave us, read without verification. */
function subjectOf(accessToken: unknown): string | undefined {
  if (typeof accessToken !== 'string') return undefined;
  try {
    const payload = JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return typeof payload?.sub === 'string' && payload.sub ? payload.sub : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The user's consent to a client (the MCP security best practices' defence against the confused
 * deputy): every client here is registered by anyone, so before its first code the user who just
 * signed in at the identity provider sees the client, where it sends the browser and the scopes it
 * asks for, and approves or denies. The approval is remembered per user and client, for the scopes
 * approved; asking for more shows the page again.
 */
@Injectable()
export class ConsentService {
  constructor(
    private readonly consents: ConsentRepository,
    private readonly codes: AuthorizationRepository,
    private readonly clients: OAuthClientsService,
  ) {}

  /** After the provider's tokens arrived: a code for an approved client, else the consent page. */
  async afterSignIn(request: AuthorizationRequest, tokens: Record<string, unknown>): Promise<SignInOutcome> {
    const subject = subjectOf(tokens.access_token);
    if (!subject)
      return {
        redirect: backToClient(request, {
          error: 'server_error',
          error_description: 'the identity provider did not name the user',
        }),
      };
    const approved = await this.consents.approvedScopes(subject, request.clientId);
    if (scopesOf(request.scope).every((scope) => approved.includes(scope)))
      return { redirect: await this.issueCode(request, tokens) };

    const client = await this.clients.resolve(request.clientId).catch(() => {
      throw new BadRequestException('the client is no longer valid');
    });
    const [consentToken, browserSecret] = [randomSecret(), randomSecret()];
    const tokenHash = hashSecret(consentToken);
    await this.consents.savePending({
      ...request,
      scope: request.scope ?? '',
      tokenHash,
      browserHash: hashSecret(browserSecret),
      subject,
      sealedTokens: sealWithCode(consentToken, JSON.stringify(tokens)),
      expiresAt: new Date(Date.now() + CONSENT_TTL_MS),
    });
    return {
      page: consentPage({
        clientId: client.clientId,
        clientName: client.clientName,
        redirectUri: request.redirectUri,
        scopes: scopesOf(request.scope),
        consentToken,
        action: `${request.issuer}${CONSENT_PATH}`,
      }),
      cookie: {
        name: cookieName(tokenHash),
        value: browserSecret,
        path: CONSENT_PATH,
        maxAgeMs: CONSENT_TTL_MS,
        secure: request.issuer.startsWith('https:'),
      },
    };
  }

  /**
   * The consent form came back: it needs the page's consent token and the same browser's cookie
   * (SameSite=Strict, so another site's form never carries it); otherwise nothing changes.
   */
  async decide(form: Record<string, unknown>, cookies: Record<string, string>): Promise<string> {
    const consentToken = typeof form.consent_token === 'string' ? form.consent_token : '';
    const decision = form.decision;
    if (!consentToken || (decision !== 'approve' && decision !== 'deny'))
      throw new BadRequestException('consent_token and decision (approve or deny) are required');
    const tokenHash = hashSecret(consentToken);
    const browserSecret = cookies[cookieName(tokenHash)];
    const pending = browserSecret
      ? await this.consents.takePending(tokenHash, hashSecret(browserSecret))
      : undefined;
    if (!pending) throw new BadRequestException('Unknown or expired consent request');
    if (decision === 'deny')
      return backToClient(pending, { error: 'access_denied', error_description: 'the user denied access' });
    await this.consents.approve(pending.subject, pending.clientId, scopesOf(pending.scope));
    const tokens = JSON.parse(openWithCode(consentToken, pending.sealedTokens)) as Record<string, unknown>;
    return this.issueCode(pending, tokens);
  }

  /** Our code for the client (bound to it, its redirect URI and PKCE), the provider's tokens sealed under it. */
  private async issueCode(request: AuthorizationRequest, tokens: Record<string, unknown>): Promise<string> {
    const code = randomSecret();
    await this.codes.saveCode({
      codeHash: hashSecret(code),
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      sealedTokens: sealWithCode(code, JSON.stringify(tokens)),
      expiresAt: new Date(Date.now() + CODE_TTL_MS),
    });
    return backToClient(request, { code });
  }
}
