import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY_PREFIX = 'fcrm_';
const LOOKUP_LENGTH = 12;

export interface GeneratedKey {
  key: string;
  prefix: string;
  hash: string;
}

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** `fcrm_<12 hex lookup prefix>_<43 chars of secret>`: 256 random bits, so SHA-256 is enough. */
export function generateKey(): GeneratedKey {
  const prefix = randomBytes(LOOKUP_LENGTH / 2).toString('hex');
  const key = `${KEY_PREFIX}${prefix}_${randomBytes(32).toString('base64url')}`;
  return { key, prefix, hash: hashKey(key) };
}

/** The lookup prefix of a well-formed key, or undefined. */
export function parseKeyPrefix(key: string): string | undefined {
  const match = /^fcrm_([0-9a-f]{12})_[A-Za-z0-9_-]{43}$/.exec(key);
  return match?.[1];
}

export function hashesMatch(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
