import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@app/core';
import { createTestDatabase } from '../../../../test/support/database';
import { oauthEntities } from '../entities';
import { AuthorizationRepository } from './authorization.repository';
import { ConsentRepository } from './consent.repository';

// Remembered scopes, single use and the cookie check live in the SQL, so they are checked on PostgreSQL.
describe(ConsentRepository.name, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataSource: DataSource;
  let consents: ConsentRepository;
  let tokens: AuthorizationRepository;

  beforeAll(async () => {
    db = await createTestDatabase();
    dataSource = await new DataSource(
      dataSourceOptions(db.url, { entities: oauthEntities, migrations: [] }, { extra: { max: 4 } }),
    ).initialize();
    consents = new ConsentRepository(dataSource);
    tokens = new AuthorizationRepository(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('remembers approvals per user and client, adding the scopes of each approval', async () => {
    await consents.approve('user-1', 'client-1', ['metrics:read', 'offline_access']);
    await consents.approve('user-1', 'client-1', ['crm:read', 'offline_access']);
    expect(await consents.approvedScopes('user-1', 'client-1')).toEqual([
      'crm:read',
      'metrics:read',
      'offline_access',
    ]);
    expect(await consents.approvedScopes('user-2', 'client-1')).toEqual([]);
    expect(await consents.approvedScopes('user-1', 'client-2')).toEqual([]);
  });

  const pending = (tokenHash: string, browserHash: string, expiresInMs = 60_000) => ({
    tokenHash,
    browserHash,
    subject: 'user-1',
    clientId: 'client-1',
    redirectUri: 'http://127.0.0.1:6274/cb',
    clientState: 'st',
    codeChallenge: 'c'.repeat(43),
    scope: 'crm:read offline_access',
    issuer: 'https://crm.example',
    sealedTokens: 'sealed',
    expiresAt: new Date(Date.now() + expiresInMs),
  });

  it('hands a pending consent out once, and only with the browser hash that goes with it', async () => {
    await consents.savePending(pending('a'.repeat(64), 'b'.repeat(64)));
    expect(await consents.takePending('a'.repeat(64), 'x'.repeat(64))).toBeUndefined();
    expect(await consents.takePending('a'.repeat(64), 'b'.repeat(64))).toMatchObject({
      subject: 'user-1',
      clientId: 'client-1',
      sealedTokens: 'sealed',
    });
    expect(await consents.takePending('a'.repeat(64), 'b'.repeat(64))).toBeUndefined();
  });

  it('does not hand out an expired pending consent', async () => {
    await consents.savePending(pending('c'.repeat(64), 'd'.repeat(64), -1));
    expect(await consents.takePending('c'.repeat(64), 'd'.repeat(64))).toBeUndefined();
  });

  it('binds a refresh token to its client, moves the binding on rotation and forgets it once', async () => {
    await tokens.bindRefreshToken('r1', 'client-1');
    expect(await tokens.refreshTokenClient('r1')).toBe('client-1');
    await tokens.rotateRefreshToken('r1', 'r2', 'client-1');
    expect(await tokens.refreshTokenClient('r1')).toBeUndefined();
    expect(await tokens.refreshTokenClient('r2')).toBe('client-1');
    expect(await tokens.forgetRefreshToken('r2', 'client-2')).toBe(false);
    expect(await tokens.forgetRefreshToken('r2', 'client-1')).toBe(true);
    expect(await tokens.refreshTokenClient('r2')).toBeUndefined();
  });
});
