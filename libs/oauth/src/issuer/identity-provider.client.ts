import type { OAuthSettings } from '@app/auth';

export interface ProviderTokenResponse {
  status: number;
  body: Record<string, unknown>;
}

/** The identity provider could not be reached or answered something that is not OAuth JSON. */
export class ProviderUnavailableError extends Error {}

const TIMEOUT_MS = 10_000;

/** POSTs a grant to the provider's token endpoint as the shared public client. */
export async function requestProviderTokens(
  settings: OAuthSettings,
  grant: Record<string, string>,
): Promise<ProviderTokenResponse> {
  let response: Response;
  try {
    response = await fetch(settings.tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ ...grant, client_id: settings.clientId }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw new ProviderUnavailableError(`token endpoint unreachable: ${(error as Error).message}`);
  }
  const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || response.status >= 500)
    throw new ProviderUnavailableError(`token endpoint answered ${response.status}`);
  return { status: response.status, body };
}

/** The standard members of a token response: what a client may see of the provider's answer. */
export function tokenResponseFields(
  body: Record<string, unknown>,
  elapsedSeconds = 0,
): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    access_token: body.access_token,
    token_type: body.token_type ?? 'Bearer',
  };
  if (typeof body.expires_in === 'number')
    fields.expires_in = Math.max(1, Math.floor(body.expires_in - elapsedSeconds));
  if (typeof body.refresh_token === 'string') fields.refresh_token = body.refresh_token;
  if (typeof body.scope === 'string') fields.scope = body.scope;
  return fields;
}
