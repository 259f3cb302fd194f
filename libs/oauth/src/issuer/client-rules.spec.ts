import { metadataDocumentUrl } from './client-metadata-document';
import { redirectUriAllowed, redirectUriMatches } from './oauth-clients.service';
import { openWithCode, sealWithCode } from './oauth-secrets';

describe(metadataDocumentUrl.name, () => {
  it.each(['https://app.example/client.json', 'https://app.example/oauth/metadata?v=1'])(
    'takes %s as a metadata document',
    (id) => expect(metadataDocumentUrl(id, false)?.href).toBe(id),
  );

  it.each([
    'https://app.example',
    'https://app.example/',
    'https://user:pw@app.example/client.json',
    'https://app.example/client.json#x',
    'https://app.example/a/../client.json',
    'http://app.example/client.json',
    'http://127.0.0.1:9000/client.json',
    'a-registered-client-id',
  ])('does not take %s in production', (id) => expect(metadataDocumentUrl(id, false)).toBeUndefined());

  it('takes a loopback http document only when allowed (development and tests)', () => {
    expect(metadataDocumentUrl('http://127.0.0.1:9000/client.json', true)).toBeDefined();
    expect(metadataDocumentUrl('http://app.example/client.json', true)).toBeUndefined();
  });
});

describe(redirectUriAllowed.name, () => {
  it.each(['https://app.example/cb', 'http://127.0.0.1:6274/cb', 'http://localhost/cb', 'cursor://oauth/cb'])(
    'allows %s',
    (uri) => expect(redirectUriAllowed(uri)).toBe(true),
  );

  it.each([
    'http://app.example/cb',
    'https://app.example/cb#f',
    'javascript:alert(1)',
    'data:text/html,x',
    '/cb',
  ])('refuses %s', (uri) => expect(redirectUriAllowed(uri)).toBe(false));
});

describe(sealWithCode.name, () => {
  it('opens only with the same code', () => {
    const sealed = sealWithCode('code-a', '{"access_token":"t"}');
    expect(sealed).not.toContain('access_token');
    expect(openWithCode('code-a', sealed)).toBe('{"access_token":"t"}');
    expect(() => openWithCode('code-b', sealed)).toThrow();
  });
});

describe(redirectUriMatches.name, () => {
  it.each([
    ['http://127.0.0.1:5533/callback', 'http://127.0.0.1:61234/callback'],
    ['http://127.0.0.1/callback', 'http://127.0.0.1:61234/callback'],
    ['http://[::1]:5533/cb?x=1', 'http://[::1]:40000/cb?x=1'],
    ['http://localhost/cb', 'http://localhost:8080/cb'],
    ['https://app.example/cb', 'https://app.example/cb'],
  ])('lets %s match %s', (registered, requested) =>
    expect(redirectUriMatches(registered, requested)).toBe(true),
  );

  it.each([
    ['https://app.example/cb', 'https://app.example:8443/cb'],
    ['http://127.0.0.1:5533/callback', 'http://localhost:5533/callback'],
    ['http://127.0.0.1:5533/callback', 'http://127.0.0.1:5533/other'],
    ['http://127.0.0.1:5533/callback', 'http://127.0.0.1:5533/callback?x=1'],
    ['http://127.0.0.1:5533/callback', 'http://u:p@127.0.0.1:5533/callback'],
    ['cursor://oauth/cb', 'cursor://oauth/cb2'],
  ])('does not let %s match %s', (registered, requested) =>
    expect(redirectUriMatches(registered, requested)).toBe(false),
  );
});
