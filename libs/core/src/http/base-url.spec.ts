import { publicBaseUrl } from './base-url';

describe(publicBaseUrl.name, () => {
  const request = (headers: Record<string, string>, encrypted = false) => ({
    headers,
    socket: { encrypted },
  });
  const direct = { BASE_URL: undefined, TRUST_PROXY: false };

  it('prefers BASE_URL, without its trailing slash', () => {
    expect(publicBaseUrl(request({ host: 'x:1' }), { ...direct, BASE_URL: 'https://api.example.com/' })).toBe(
      'https://api.example.com',
    );
  });

  it('derives scheme and host from the connection', () => {
    expect(publicBaseUrl(request({ host: 'localhost:3000' }), direct)).toBe('http://localhost:3000');
    expect(publicBaseUrl(request({ host: 'api.example.com' }, true), direct)).toBe('https://api.example.com');
    expect(publicBaseUrl(request({ host: '[::1]:3000' }), direct)).toBe('http://[::1]:3000');
  });

  it('reads the first X-Forwarded-Proto/Host value only when the proxy is trusted', () => {
    const headers = {
      host: 'internal:3000',
      'x-forwarded-proto': 'https, http',
      'x-forwarded-host': 'api.example.com, internal',
    };
    expect(publicBaseUrl(request(headers), direct)).toBe('http://internal:3000');
    expect(publicBaseUrl(request(headers), { ...direct, TRUST_PROXY: true })).toBe('https://api.example.com');
  });

  it('refuses a Host header that is not a host name', () => {
    expect(publicBaseUrl(request({ host: 'evil.example/path?x=' }), direct)).toBeUndefined();
    expect(publicBaseUrl(request({}), direct)).toBeUndefined();
    expect(
      publicBaseUrl(request({ host: 'a', 'x-forwarded-proto': 'javascript' }), {
        ...direct,
        TRUST_PROXY: true,
      }),
    ).toBeUndefined();
  });
});
