import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@app/core';
import { createTestDatabase } from '../../../../test/support/database';
import { oauthEntities } from '../entities';
import { AuthorizationRepository } from './authorization.repository';

// Single use lives in the SQL (one DELETE ... RETURNING per take), so it is checked on PostgreSQL.
describe(AuthorizationRepository.name, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataSource: DataSource;
  let repository: AuthorizationRepository;

  beforeAll(async () => {
    db = await createTestDatabase();
    dataSource = await new DataSource(
      dataSourceOptions(db.url, { entities: oauthEntities, migrations: [] }, { extra: { max: 4 } }),
    ).initialize();
    repository = new AuthorizationRepository(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  const inMs = (ms: number) => new Date(Date.now() + ms);
  const pending = (stateHash: string, expiresAt: Date) => ({
    stateHash,
    clientId: 'client-1',
    redirectUri: 'http://127.0.0.1:6274/cb',
    clientState: null,
    codeChallenge: 'c'.repeat(43),
    scope: 'offline_access',
    issuer: 'https://crm.example',
    expiresAt,
  });
  const code = (codeHash: string, expiresAt: Date) => ({
    codeHash,
    clientId: 'client-1',
    redirectUri: 'http://127.0.0.1:6274/cb',
    codeChallenge: 'c'.repeat(43),
    sealedTokens: 'sealed',
    expiresAt,
  });
  const count = async (table: string) =>
    Number(((await dataSource.query(`SELECT count(*) FROM ${table}`)) as { count: string }[])[0].count);

  it('hands a pending authorization out once', async () => {
    await repository.savePending(pending('a'.repeat(64), inMs(60_000)));
    expect(await repository.takePending('a'.repeat(64))).toMatchObject({
      stateHash: 'a'.repeat(64),
      clientId: 'client-1',
      clientState: null,
      scope: 'offline_access',
    });
    expect(await repository.takePending('a'.repeat(64))).toBeUndefined();
  });

  it('hands a code out once to two takers at the same time', async () => {
    await repository.saveCode(code('b'.repeat(64), inMs(60_000)));
    const taken = await Promise.all([
      repository.takeCode('b'.repeat(64)),
      repository.takeCode('b'.repeat(64)),
    ]);
    expect(taken.filter(Boolean)).toHaveLength(1);
    expect(taken.find(Boolean)).toMatchObject({ clientId: 'client-1', sealedTokens: 'sealed', live: true });
  });

  it('burns an expired code, answering it as not live', async () => {
    await dataSource.query(
      `INSERT INTO oauth_authorization_codes (code_hash, client_id, redirect_uri, code_challenge, sealed_tokens, expires_at)
       VALUES ($1, 'client-1', 'http://127.0.0.1:6274/cb', $2, 'sealed', now() - interval '1 second')`,
      ['c'.repeat(64), 'c'.repeat(43)],
    );
    expect(await repository.takeCode('c'.repeat(64))).toMatchObject({ live: false });
    expect(await repository.takeCode('c'.repeat(64))).toBeUndefined();
  });

  it('does not hand out an expired pending authorization', async () => {
    await dataSource.query(
      `INSERT INTO oauth_pending_authorizations (state_hash, client_id, redirect_uri, code_challenge, issuer, expires_at)
       VALUES ($1, 'client-1', 'http://127.0.0.1:6274/cb', $2, 'https://crm.example', now() - interval '1 second')`,
      ['d'.repeat(64), 'c'.repeat(43)],
    );
    expect(await repository.takePending('d'.repeat(64))).toBeUndefined();
  });

  it('sweeps expired rows of both tables on the next write', async () => {
    await dataSource.query(
      `INSERT INTO oauth_authorization_codes (code_hash, client_id, redirect_uri, code_challenge, sealed_tokens, expires_at)
       VALUES ($1, 'client-1', 'http://127.0.0.1:6274/cb', $2, 'sealed', now() - interval '1 second')`,
      ['e'.repeat(64), 'c'.repeat(43)],
    );
    await repository.savePending(pending('f'.repeat(64), inMs(60_000)));
    expect(await count('oauth_authorization_codes')).toBe(0);
    expect(await count('oauth_pending_authorizations')).toBe(1);
  });
});
