import { isLoopbackUrl } from './loopback';

describe(isLoopbackUrl.name, () => {
  it.each([
    'http://127.0.0.1:6274/oauth/callback',
    'http://localhost/cb',
    'http://[::1]:8080/',
    'http://localhost:6274',
  ])('accepts %s', (url) => expect(isLoopbackUrl(url)).toBe(true));

  it.each([
    'https://evil.example/cb',
    'http://127.0.0.1.evil.example/cb',
    'myapp://callback',
    'not a url',
    'null',
  ])('refuses %s', (url) => expect(isLoopbackUrl(url)).toBe(false));
});
