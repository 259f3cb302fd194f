import { oauthSettingsFrom } from '@app/auth';
import { identityProviderAuthorizeUrl, registerClient } from './oauth-documents';

describe(identityProviderAuthorizeUrl.name, () => {
  const settings = oauthSettingsFrom({
    IDP_URL: 'https://tenant.idp.example/',
    OAUTH_CLIENT_ID: 'c',
    OAUTH_AUDIENCE: 'https://api.example',
    OAUTH_CONNECTION: 'github',
    OAUTH_CLAIM_NAMESPACE: 'https://ns.example/',
  })!;

  it('keeps every parameter and its repeats in order, then adds audience and connection', () => {
    expect(identityProviderAuthorizeUrl('scope=a&x=1&x=2&state=%2F%2B', settings)).toBe(
      'https://tenant.idp.example/authorize?scope=a&x=1&x=2&state=%2F%2B&audience=https%3A%2F%2Fapi.example&connection=github',
    );
  });

  it('replaces client-sent audience and connection', () => {
    const url = new URL(
      identityProviderAuthorizeUrl('audience=evil&connection=evil&audience=evil2', settings),
    );
    expect(url.searchParams.getAll('audience')).toEqual(['https://api.example']);
    expect(url.searchParams.getAll('connection')).toEqual(['github']);
  });

  it('builds the claim name and endpoints from the settings', () => {
    expect(settings).toMatchObject({
      issuer: 'https://tenant.idp.example/',
      tokenEndpoint: 'https://tenant.idp.example/oauth/token',
      userMetadataClaim: 'https://ns.example/user_metadata',
    });
  });
});

describe(registerClient.name, () => {
  it('echoes the redirect URIs with the shared client id', () => {
    expect(registerClient({ redirect_uris: ['http://127.0.0.1/cb'] }, 'shared')).toMatchObject({
      client_id: 'shared',
      redirect_uris: ['http://127.0.0.1/cb'],
      token_endpoint_auth_method: 'none',
    });
  });

  it.each([
    undefined,
    null,
    'x',
    [],
    {},
    { redirect_uris: [] },
    { redirect_uris: [1] },
    { redirect_uris: 'x' },
  ])('refuses %p', (body) => {
    expect(registerClient(body, 'shared')).toBeUndefined();
  });
});
