import { grantedMcpScopes, tokenScopesOf } from './oauth-scopes';

describe(grantedMcpScopes.name, () => {
  it('grants exactly the MCP scopes a token names, ignoring others', () => {
    expect(grantedMcpScopes(['openid', 'crm:read', 'offline_access'], 'full-access')).toEqual(['crm:read']);
    expect(grantedMcpScopes(['metrics:read', 'crm:write'], 'refuse')).toEqual(['crm:write', 'metrics:read']);
  });

  it('gives a token naming no MCP scope every scope under full-access and none under refuse', () => {
    expect(grantedMcpScopes(['offline_access'], 'full-access')).toEqual([
      'crm:read',
      'crm:write',
      'metrics:read',
    ]);
    expect(grantedMcpScopes([], 'refuse')).toEqual([]);
  });
});

describe(tokenScopesOf.name, () => {
  it('reads scope as a space-separated string and scp as a list or string', () => {
    expect(tokenScopesOf({ scope: 'crm:read  metrics:read' })).toEqual(['crm:read', 'metrics:read']);
    expect(tokenScopesOf({ scp: ['crm:write', 7] })).toEqual(['crm:write']);
    expect(tokenScopesOf({ scp: 'crm:read' })).toEqual(['crm:read']);
    expect(tokenScopesOf({})).toEqual([]);
  });
});
