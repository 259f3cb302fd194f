import { NotFoundError, ValidationError } from '@app/core';
import { hashKey } from './api-key.secret';
import type { ApiKeyLookup, StoredKey } from './api-key-lookup';
import type { ApiKeysRepository, NewApiKey } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import type { CompaniesService } from './companies.service';
import type { ApiKey } from './entities/api-key.entity';

const companyId = '00000000-0000-4000-8000-000000000001';

/** The service over an in-memory table: what it stores, what the lookup finds, what it records. */
function setup() {
  const rows: ApiKey[] = [];
  const used: string[] = [];
  const forgotten: string[] = [];
  const repository = {
    insert: (key: NewApiKey) => {
      const row = { ...key, id: `key-${rows.length + 1}`, createdAt: new Date(), revokedAt: null } as ApiKey;
      rows.push(row);
      return Promise.resolve(row);
    },
  } as unknown as ApiKeysRepository;
  const lookup = {
    byPrefix: (prefix: string): Promise<StoredKey | undefined> => {
      const row = rows.find((r) => r.prefix === prefix);
      return Promise.resolve(row && { ...row, lastUsedMs: 0 });
    },
    recordUse: (key: StoredKey) => void used.push(key.id),
    forget: (prefix: string) => void forgotten.push(prefix),
  } as unknown as ApiKeyLookup;
  const companies = {
    assertExists: (id: string) =>
      id === companyId ? Promise.resolve() : Promise.reject(new NotFoundError('Company not found')),
  } as unknown as CompaniesService;
  return { service: new ApiKeysService(repository, companies, lookup), rows, used, forgotten };
}

describe(ApiKeysService.name, () => {
  describe('create', () => {
    it('issues fcrm_<12 hex>_<43 base64url> and stores only its prefix and SHA-256', async () => {
      const { service, rows } = setup();
      const { key } = await service.create(companyId, ['crm:read']);
      expect(key).toMatch(/^fcrm_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
      expect(rows[0].prefix).toBe(key.slice(5, 17));
      expect(rows[0].keyHash).toBe(hashKey(key));
      expect(JSON.stringify(rows[0])).not.toContain(key);
    });

    it('stores each permission once', async () => {
      const { service, rows } = setup();
      await service.create(companyId, ['crm:read', 'crm:write', 'crm:read']);
      expect(rows[0].permissions).toEqual(['crm:read', 'crm:write']);
    });

    it.each([[[]], [['crm:read', 'crm:admin']], [['CRM:READ']]])(
      'refuses the permissions %j with the list of known ones',
      async (permissions) => {
        const { service, rows } = setup();
        await expect(service.create(companyId, permissions)).rejects.toThrow(
          new ValidationError(
            'permissions must be a non-empty list of crm:read, crm:write, metrics:read, events:write, webhooks:write',
          ),
        );
        expect(rows).toHaveLength(0);
      },
    );

    it('refuses an unknown company and stores nothing', async () => {
      const { service, rows } = setup();
      await expect(service.create('00000000-0000-4000-8000-000000000002', ['crm:read'])).rejects.toThrow(
        NotFoundError,
      );
      expect(rows).toHaveLength(0);
    });

    it('answers expiresAt only for a key that expires, expiresInMs from now', async () => {
      const { service } = setup();
      expect(await service.create(companyId, ['crm:read'])).not.toHaveProperty('expiresAt');
      const before = Date.now();
      const { expiresAt } = await service.create(companyId, ['crm:read'], 'ci', { expiresInMs: 3_600_000 });
      const at = new Date(expiresAt!).getTime();
      expect(at).toBeGreaterThanOrEqual(before + 3_600_000);
      expect(at).toBeLessThanOrEqual(Date.now() + 3_600_000);
    });
  });

  describe('authenticate', () => {
    it('answers the principal of a valid key and records its use', async () => {
      const { service, used } = setup();
      const { id, key } = await service.create(companyId, ['metrics:read']);
      expect(await service.authenticate(key)).toEqual({
        principal: { keyId: id, keyPrefix: key.slice(5, 17), companyId, permissions: ['metrics:read'] },
      });
      expect(used).toEqual([id]);
    });

    it('refuses a malformed key without looking it up', async () => {
      const { service, used } = setup();
      const { key } = await service.create(companyId, ['crm:read']);
      for (const presented of [key.slice(0, -1), `${key}x`, key.replace('fcrm_', 'fcrn_'), key.toUpperCase()])
        expect(await service.authenticate(presented)).toEqual({ refused: 'invalid' });
      expect(used).toEqual([]);
    });

    it('refuses a well-formed key whose secret differs from the stored hash', async () => {
      const { service } = setup();
      const { key } = await service.create(companyId, ['crm:read']);
      const forged = `${key.slice(0, 18)}${'A'.repeat(43)}`;
      expect(await service.authenticate(forged)).toEqual({ refused: 'invalid' });
    });

    it('refuses a revoked key as invalid, even when it has expired too', async () => {
      const { service, rows } = setup();
      const { key } = await service.create(companyId, ['crm:read']);
      rows[0].revokedAt = new Date();
      rows[0].expiresAt = new Date(Date.now() - 1000);
      expect(await service.authenticate(key)).toEqual({ refused: 'invalid' });
    });

    it('refuses a key from the instant it expires, and records no use', async () => {
      const { service, rows, used } = setup();
      const { key } = await service.create(companyId, ['crm:read'], undefined, { expiresInMs: 60_000 });
      rows[0].expiresAt = new Date(Date.now() + 60_000);
      expect(await service.authenticate(key)).toHaveProperty('principal');
      rows[0].expiresAt = new Date(Date.now());
      expect(await service.authenticate(key)).toEqual({ refused: 'expired' });
      expect(used).toHaveLength(1);
    });
  });
});
