import { BadRequestException } from '@nestjs/common';
import type { AuthorizationRepository } from './authorization.repository';
import type { ConsentRepository } from './consent.repository';
import { AuthorizationRequest, ConsentService } from './consent.service';
import type { OAuthClientsService } from './oauth-clients.service';

const jwtFor = (sub: string) => `e30.${Buffer.from(JSON.stringify({ sub })).toString('base64url')}.signature`;

const request: AuthorizationRequest = {
  clientId: 'client-1',
  redirectUri: 'http://127.0.0.1:61234/cb',
  clientState: 'st',
  codeChallenge: 'c'.repeat(43),
  scope: 'crm:read offline_access',
  issuer: 'https://crm.example',
};

/** The service over in-memory approvals, pending consents and codes. */
function setup(approved: string[] = []) {
  const approvals = new Map<string, string[]>([['user-1 client-1', approved]]);
  const pending = new Map<string, Parameters<ConsentRepository['savePending']>[0]>();
  const codes: unknown[] = [];
  const consents = {
    approvedScopes: (subject: string, clientId: string) =>
      Promise.resolve(approvals.get(`${subject} ${clientId}`) ?? []),
    approve: (subject: string, clientId: string, scopes: string[]) =>
      void approvals.set(`${subject} ${clientId}`, scopes),
    savePending: (row: Parameters<ConsentRepository['savePending']>[0]) =>
      void pending.set(row.tokenHash, row),
    takePending: (tokenHash: string, browserHash: string) => {
      const row = pending.get(tokenHash);
      if (!row || row.browserHash !== browserHash) return Promise.resolve(undefined);
      pending.delete(tokenHash);
      return Promise.resolve(row);
    },
  } as unknown as ConsentRepository;
  const store = { saveCode: (row: unknown) => void codes.push(row) } as unknown as AuthorizationRepository;
  const clients = {
    resolve: () => Promise.resolve({ clientId: 'client-1', clientName: '<b>Evil</b>', redirectUris: [] }),
  } as unknown as OAuthClientsService;
  return { service: new ConsentService(consents, store, clients), approvals, pending, codes };
}

const tokens = { access_token: jwtFor('user-1'), refresh_token: 'rt' };

describe(ConsentService.name, () => {
  it('issues the code at once when the user approved every scope asked for', async () => {
    const { service, codes } = setup(['crm:read', 'metrics:read', 'offline_access']);
    const outcome = await service.afterSignIn(request, tokens);
    expect('redirect' in outcome && new URL(outcome.redirect).searchParams.get('code')).toEqual(
      expect.any(String),
    );
    expect(codes).toHaveLength(1);
  });

  it('shows the page, escaped, when the client asks for a scope not yet approved', async () => {
    const { service, codes, pending } = setup(['offline_access']);
    const outcome = await service.afterSignIn(request, tokens);
    if (!('page' in outcome)) throw new Error('expected the consent page');
    expect(outcome.page).toContain('&lt;b&gt;Evil&lt;/b&gt;');
    expect(outcome.page).not.toContain('<b>Evil</b>');
    expect(outcome.page).toContain('127.0.0.1:61234');
    expect(outcome.cookie).toMatchObject({ path: '/oauth/consent', secure: true });
    expect(codes).toHaveLength(0);
    expect(pending.size).toBe(1);
  });

  it('never issues a code without knowing the user', async () => {
    const { service, codes } = setup(['crm:read', 'offline_access']);
    const outcome = await service.afterSignIn(request, { access_token: 'opaque' });
    expect('redirect' in outcome && new URL(outcome.redirect).searchParams.get('error')).toBe('server_error');
    expect(codes).toHaveLength(0);
  });

  it('takes nothing without the browser cookie, then approves with it and remembers the scopes', async () => {
    const { service, approvals, codes, pending } = setup();
    const outcome = await service.afterSignIn(request, tokens);
    if (!('page' in outcome)) throw new Error('expected the consent page');
    const consentToken = /name="consent_token" value="([^"]+)"/.exec(outcome.page)![1];
    const form = { consent_token: consentToken, decision: 'approve' };

    await expect(service.decide(form, {})).rejects.toThrow(BadRequestException);
    await expect(service.decide(form, { [outcome.cookie.name]: 'forged' })).rejects.toThrow(
      'Unknown or expired consent request',
    );
    expect(pending.size).toBe(1);
    expect(codes).toHaveLength(0);

    const back = new URL(await service.decide(form, { [outcome.cookie.name]: outcome.cookie.value }));
    expect(back.searchParams.get('code')).toEqual(expect.any(String));
    expect(back.searchParams.get('iss')).toBe(request.issuer);
    expect(approvals.get('user-1 client-1')).toEqual(['crm:read', 'offline_access']);
    // Single use: the same form again is refused.
    await expect(service.decide(form, { [outcome.cookie.name]: outcome.cookie.value })).rejects.toThrow(
      BadRequestException,
    );
  });
});
