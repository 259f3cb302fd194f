import { createHash, randomBytes } from 'node:crypto';
import { databaseDevUser, startDevIdp } from '@app/dev-idp';
import { startTestApp } from './app';
import { httpClient } from './http-client';
import { followAuthorization } from './oauth-browser';
import { OAUTH } from './oauth-issuer';

const REDIRECT_URI = 'http://127.0.0.1:8765/oauth/callback';

interface Step {
  call: string;
  status: number;
  body: unknown;
}

/** What an OAuth answer holds apart from its values, which are random: its members, sorted. */
const membersOf = (body: unknown) =>
  body && typeof body === 'object' ? Object.keys(body as object).sort() : body;

async function form(base: string, path: string, fields: Record<string, string>) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

/**
 * The sign-in of an MCP client against the service as its own authorization server, on the database
 * at `url`: discovery, client registration, authorization through the development identity
 * provider and the consent page, the code and a refresh redeemed, the refresh token revoked.
 * Tokens and ids are random: each answer is its status and members.
 */
export async function runOAuthTraffic(url: string): Promise<Step[]> {
  const idp = await startDevIdp({
    port: 0,
    clientId: OAUTH.OAUTH_CLIENT_ID,
    audience: OAUTH.OAUTH_AUDIENCE,
    claimNamespace: OAUTH.OAUTH_CLAIM_NAMESPACE,
    findUser: databaseDevUser(url),
  });
  const t = await startTestApp({ ...OAUTH, IDP_URL: idp.url, OAUTH_MODE: 'issuer' }, url);
  const steps: Step[] = [];
  try {
    const base = t.baseUrl;
    const api = httpClient(base);
    for (const path of [
      '/health',
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const res = await api.get(path);
      steps.push({ call: `GET ${path}`, status: res.status, body: membersOf(res.body) });
    }
    const registered = await api.post('/oauth/register', {
      client_name: 'Traffic',
      redirect_uris: [REDIRECT_URI],
    });
    steps.push({ call: 'POST /oauth/register', status: registered.status, body: membersOf(registered.body) });
    const clientId = String(registered.body?.client_id);
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(`${base}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      state: 'st',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const flow: string[] = [];
    const back = await followAuthorization(authorize, REDIRECT_URI, (step) => flow.push(step));
    steps.push({
      call: 'the authorization through the identity provider and the consent page',
      status: back.searchParams.has('code') ? 0 : 1,
      // The identity provider's interaction ids are random.
      body: flow.map((step) =>
        step
          .replace(/https?:\/\/127\.0\.0\.1:\d+/, '')
          .replace(/\/(interaction|authorize)\/[^/ ]+/, '/$1/{uid}'),
      ),
    });
    const code = String(back.searchParams.get('code'));
    const grant = { client_id: clientId, redirect_uri: REDIRECT_URI, code_verifier: verifier };
    const tokens = await form(base, '/oauth/token', { grant_type: 'authorization_code', code, ...grant });
    steps.push({ call: 'POST /oauth/token (code)', status: tokens.status, body: membersOf(tokens.body) });
    const refresh = String(tokens.body?.refresh_token);
    const refreshed = await form(base, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: clientId,
    });
    steps.push({
      call: 'POST /oauth/token (refresh)',
      status: refreshed.status,
      body: membersOf(refreshed.body),
    });
    const revoked = await form(base, '/oauth/revoke', {
      token: String(refreshed.body?.refresh_token),
      client_id: clientId,
    });
    steps.push({ call: 'POST /oauth/revoke', status: revoked.status, body: membersOf(revoked.body) });
    return steps;
  } finally {
    await t.close();
    await idp.close();
  }
}
