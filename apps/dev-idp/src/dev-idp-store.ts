import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

interface Entry {
  payload: AdapterPayload;
  expiresAt: number;
}

/**
 * Where the development identity provider keeps its sessions, grants and tokens: this process's
 * memory, for as long as it runs. That is all it needs: it runs in the one `npm start` process,
 * and its signing and cookie keys are made at start, so nothing it issued could be used after a
 * restart anyway. One store per provider (never shared between providers, as tests start several).
 */
export function devIdpStore(): AdapterFactory {
  const entries = new Map<string, Entry>();
  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) entries.delete(key);
    else return entry;
    return undefined;
  };
  return (model: string): Adapter => {
    const key = (id: string) => `${model}:${id}`;
    const findBy = (field: 'uid' | 'userCode', value: string) => {
      for (const [k, entry] of entries) {
        if (k.startsWith(`${model}:`) && entry.payload[field] === value && live(k)) return entry.payload;
      }
      return undefined;
    };
    return {
      upsert: async (id, payload, expiresIn) => {
        if (entries.size >= 1_000) for (const k of [...entries.keys()]) live(k);
        entries.set(key(id), {
          payload,
          expiresAt: typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : Infinity,
        });
      },
      find: async (id) => live(key(id))?.payload,
      findByUid: async (uid) => findBy('uid', uid),
      findByUserCode: async (userCode) => findBy('userCode', userCode),
      consume: async (id) => {
        const entry = live(key(id));
        if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id) => void entries.delete(key(id)),
      revokeByGrantId: async (grantId) => {
        for (const [k, entry] of entries) if (entry.payload.grantId === grantId) entries.delete(k);
      },
    };
  };
}
