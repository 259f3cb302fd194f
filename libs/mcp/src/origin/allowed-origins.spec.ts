import { originPolicy } from './allowed-origins';

describe(originPolicy.name, () => {
  it('allows the BASE_URL origin and loopback origins in development', () => {
    const allowed = originPolicy({ NODE_ENV: 'development', BASE_URL: 'https://crm.example.com/api' });
    expect(allowed('https://crm.example.com')).toBe(true);
    expect(allowed('http://localhost:6274')).toBe(true);
    expect(allowed('http://127.0.0.1:3000')).toBe(true);
    expect(allowed('http://[::1]:8080')).toBe(true);
    expect(allowed('http://crm.example.com')).toBe(false);
    expect(allowed('http://evil.example.com')).toBe(false);
    expect(allowed('http://localhost.evil.example.com')).toBe(false);
    expect(allowed('null')).toBe(false);
  });

  it('allows no loopback origin in production', () => {
    const allowed = originPolicy({ NODE_ENV: 'production', BASE_URL: 'https://crm.example.com' });
    expect(allowed('https://crm.example.com')).toBe(true);
    expect(allowed('http://localhost:6274')).toBe(false);
  });

  it('allows exactly MCP_ALLOWED_ORIGINS when set', () => {
    const allowed = originPolicy({
      NODE_ENV: 'development',
      BASE_URL: 'https://crm.example.com',
      MCP_ALLOWED_ORIGINS: 'https://app.example.com, http://localhost:6274',
    });
    expect(allowed('https://app.example.com')).toBe(true);
    expect(allowed('http://localhost:6274')).toBe(true);
    expect(allowed('http://localhost:6275')).toBe(false);
    expect(allowed('https://crm.example.com')).toBe(false);
  });
});
