import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY_PREFIX = 'fcrm_';
/** Hex characters of the lookup prefix, the part of a key stored in the clear. */
const LOOKUP_LENGTH = 12;
const SECRET_BYTES = 32;
// The secret is base64url without padding: 4 characters for every 3 bytes.
const SECRET_LENGTH = Math.ceil((SECRET_BYTES * 4) / 3);
const KEY_FORMAT = new RegExp(`^${KEY_PREFIX}([0-9a-f]{${LOOKUP_LENGTH}})_[A-Za-z0-9_-]{${SECRET_LENGTH}}$`);

export interface GeneratedKey {
  key: string;
  prefix: string;
  hash: string;
}

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** `fcrm_<12 hex lookup prefix>_<43 chars of secret>`: 256 random bits, so SHA-256 is enough. */
export function generateKey(): GeneratedKey {
  const prefix = randomBytes(LOOKUP_LENGTH / 2).toString('hex');
  const key = `${KEY_PREFIX}${prefix}_${randomBytes(SECRET_BYTES).toString('base64url')}`;
  return { key, prefix, hash: hashKey(key) };
}

/** The lookup prefix of a well-formed key, or undefined. */
export function parseKeyPrefix(key: string): string | undefined {
  const match = KEY_FORMAT.exec(key);
  return match?.[1];
}

export function hashesMatch(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
