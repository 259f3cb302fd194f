import { impliedApplicationType, redirectUriFits } from './oauth-clients.service';

describe(redirectUriFits.name, () => {
  it.each([
    ['http://127.0.0.1:9000/cb', 'native', true],
    ['http://localhost/cb', 'native', true],
    ['http://[::1]:8080/cb', 'native', true],
    ['com.example.app:/cb', 'native', true],
    ['https://app.example.com/cb', 'native', false],
    ['https://app.example.com/cb', 'web', true],
    ['https://localhost/cb', 'web', false],
    ['http://127.0.0.1/cb', 'web', false],
    ['com.example.app:/cb', 'web', false],
  ] as const)('%s fits a %s application: %s', (uri, type, fits) => {
    expect(redirectUriFits(uri, type)).toBe(fits);
  });
});

describe(impliedApplicationType.name, () => {
  it('names the type every redirect URI fits, or none when they mix', () => {
    expect(impliedApplicationType(['http://127.0.0.1/cb', 'my.app:/cb'])).toBe('native');
    expect(impliedApplicationType(['https://a.example/cb'])).toBe('web');
    expect(impliedApplicationType(['https://a.example/cb', 'http://127.0.0.1/cb'])).toBeUndefined();
  });
});
