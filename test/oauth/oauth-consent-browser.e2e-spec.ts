import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { BrowserContext, Page } from 'playwright-core';
import { httpClient } from '../support/http-client';
import { launchChromium } from '../support/inspector';
import { mcpStatusWith, OAuthStack, startOAuthStack } from '../support/oauth-issuer';

jest.setTimeout(180_000);

const STEP_MS = 60_000;
const newVerifier = () => randomBytes(32).toString('base64url');
const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

interface ClientApp {
  port: number;
  /** The query of every request to /callback, in order. */
  callbacks: URLSearchParams[];
  /** Serves `html` at /page (an attacker's page when opened as http://localhost:port). */
  pages: Map<string, string>;
  close(): Promise<void>;
}

/** A native MCP client's loopback listener on a random port, as RFC 8252 §7.3 has it. */
async function startClientApp(): Promise<ClientApp> {
  const callbacks: URLSearchParams[] = [];
  const pages = new Map<string, string>();
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.pathname === '/callback') {
      callbacks.push(url.searchParams);
      return void response.writeHead(200, { 'content-type': 'text/html' }).end('<p id="done">signed in</p>');
    }
    const page = pages.get(url.pathname);
    if (!page) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
  // Every address, so the page is reachable as 127.0.0.1 and as localhost (another site).
  await new Promise<void>((resolve) => server.listen(0, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    callbacks,
    pages,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The consent page in Chromium (the confused-deputy defence): a dynamically registered client
 * whose loopback redirect URI is registered without a port comes back on a random one; the user
 * signed in at the identity provider sees the client, its redirect host and scopes, and approves
 * (remembered: the next sign-in goes straight back), denies (`access_denied`), or is the target of
 * a forged approval from another site, which changes nothing.
 */
describe('issuer mode consent page in Chromium', () => {
  let stack: OAuthStack;
  let app: ClientApp;
  let browser: BrowserContext;
  let home: string;
  let base: string;

  beforeAll(async () => {
    stack = await startOAuthStack('issuer');
    base = stack.t.baseUrl;
    app = await startClientApp();
    home = await mkdtemp(join(tmpdir(), 'consent-e2e-'));
    browser = await launchChromium(join(home, 'profile'));
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await stack?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  /** A client registered with the port-less loopback URI, asking for a confidential client. */
  async function registerClient(name: string): Promise<string> {
    const registered = await httpClient(base).post('/oauth/register', {
      client_name: name,
      redirect_uris: ['http://127.0.0.1/callback'],
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(registered.status).toBe(201);
    // Registered as a public client: the answer says so, and no secret is issued.
    expect(registered.body.token_endpoint_auth_method).toBe('none');
    expect(registered.body.client_secret).toBeUndefined();
    return registered.body.client_id as string;
  }

  const redirectUri = () => `http://127.0.0.1:${app.port}/callback`;

  function authorizeUrl(clientId: string, verifier: string, state: string): string {
    return `${base}/oauth/authorize?${new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri(),
      response_type: 'code',
      scope: 'crm:read metrics:read',
      state,
      code_challenge: challengeOf(verifier),
      code_challenge_method: 'S256',
    }).toString()}`;
  }

  /** Opens the authorize URL; the identity provider signs the user in; the consent page shows. */
  async function openConsentPage(clientId: string, verifier: string, state: string): Promise<Page> {
    const page = await browser.newPage();
    page.setDefaultTimeout(STEP_MS);
    const consent = page.waitForResponse((r) => r.url().startsWith(`${base}/oauth/callback`));
    await page.goto(authorizeUrl(clientId, verifier, state));
    const response = await consent;
    expect(response.status()).toBe(200);
    const headers = response.headers();
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(await response.headerValue('set-cookie')).toMatch(/SameSite=Strict/i);
    await page.locator('#approve').waitFor();
    return page;
  }

  const callbackFor = async (state: string): Promise<URLSearchParams> => {
    const deadline = Date.now() + STEP_MS;
    for (;;) {
      const found = app.callbacks.find((query) => query.get('state') === state);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no callback for state ${state}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  async function consentRows(clientId: string): Promise<Record<string, unknown>[]> {
    const db = new Client({ connectionString: stack.t.databaseUrl });
    await db.connect();
    try {
      return (await db.query('SELECT subject, scopes FROM oauth_consents WHERE client_id = $1', [clientId]))
        .rows;
    } finally {
      await db.end();
    }
  }

  it('approves: the client gets its code on a random loopback port, and the approval is remembered', async () => {
    const clientId = await registerClient('Consent e2e client');
    const verifier = newVerifier();
    const page = await openConsentPage(clientId, verifier, 'approve-1');
    expect(await page.locator('#client-name').textContent()).toBe('Consent e2e client');
    expect(await page.locator('#client-id').textContent()).toBe(clientId);
    expect(await page.locator('#redirect-host').textContent()).toBe(`127.0.0.1:${app.port}`);
    expect(await page.locator('#scopes code').allTextContents()).toEqual([
      'crm:read',
      'metrics:read',
      'offline_access',
    ]);
    await page.locator('#approve').click();
    await page.locator('#done').waitFor();

    const back = await callbackFor('approve-1');
    expect(back.get('iss')).toBe(base);
    const token = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: back.get('code')!,
        client_id: clientId,
        redirect_uri: redirectUri(),
        code_verifier: verifier,
      }),
    });
    expect(token.status).toBe(200);
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    expect(await mcpStatusWith(base, accessToken)).toBe(200);
    expect(await consentRows(clientId)).toEqual([
      { subject: stack.tenant.companyId, scopes: 'crm:read metrics:read offline_access' },
    ]);

    // The same user and client, the same scopes: no consent page, straight back with a code.
    await page.goto(authorizeUrl(clientId, newVerifier(), 'approve-2'));
    await page.locator('#done').waitFor();
    expect((await callbackFor('approve-2')).get('code')).toEqual(expect.any(String));
    await page.close();
  });

  it('denies: the client gets access_denied and no code, and nothing is remembered', async () => {
    const clientId = await registerClient('Denied e2e client');
    const page = await openConsentPage(clientId, newVerifier(), 'deny-1');
    await page.locator('#deny').click();
    await page.locator('#done').waitFor();
    const back = await callbackFor('deny-1');
    expect(Object.fromEntries(back)).toEqual({
      error: 'access_denied',
      error_description: 'the user denied access',
      state: 'deny-1',
      iss: base,
    });
    expect(await consentRows(clientId)).toEqual([]);
    await page.close();
  });

  it('refuses a forged approval from another site, which changes nothing', async () => {
    const clientId = await registerClient('Forged e2e client');
    const page = await openConsentPage(clientId, newVerifier(), 'forged-1');
    const realToken = await page.locator('input[name="consent_token"]').getAttribute('value');
    expect(realToken).toEqual(expect.any(String));

    // localhost is another site than 127.0.0.1: the SameSite=Strict consent cookie stays home.
    const attacker = await browser.newPage();
    attacker.setDefaultTimeout(STEP_MS);
    for (const [name, token] of [
      ['none', null],
      ['wrong', newVerifier()],
      ['stolen', realToken],
    ] as const) {
      const field = token === null ? '' : `<input type="hidden" name="consent_token" value="${token}">`;
      app.pages.set(
        `/forge-${name}`,
        `<form id="f" method="post" action="${base}/oauth/consent">${field}` +
          `<input type="hidden" name="decision" value="approve"></form>` +
          `<script>document.getElementById('f').submit()</script>`,
      );
      const refused = attacker.waitForResponse((r) => r.url() === `${base}/oauth/consent`);
      await attacker.goto(`http://localhost:${app.port}/forge-${name}`);
      const response = await refused;
      expect(response.status()).toBe(400);
    }
    await attacker.close();
    expect(app.callbacks.some((query) => query.get('state') === 'forged-1')).toBe(false);
    expect(await consentRows(clientId)).toEqual([]);

    // The genuine page still works: the forgeries took nothing.
    await page.locator('#approve').click();
    await page.locator('#done').waitFor();
    expect((await callbackFor('forged-1')).get('code')).toEqual(expect.any(String));
    await page.close();
  });
});
