import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/** A fresh 256-bit random value, base64url: authorization codes and states sent to the provider. */
export const randomSecret = (): string => randomBytes(32).toString('base64url');

/** What the database keeps of a code or state: its SHA-256, so a read of the table redeems nothing. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** RFC 7636 S256: base64url(SHA-256(verifier)). */
export const s256 = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

const derive = (secret: string, purpose: string, length: number): Buffer =>
  Buffer.from(hkdfSync('sha256', secret, '', `funnel-crm oauth ${purpose}`, length));

/**
 * The PKCE verifier this service sends the identity provider, derived from the state it sent with
 * the authorization: only the holder of the state (the callback) can rebuild it, nothing is stored.
 */
export const providerCodeVerifier = (state: string): string =>
  derive(state, 'provider pkce', 32).toString('base64url');

/**
 * The provider's tokens wait for the client's code exchange encrypted (AES-256-GCM) under a key
 * derived from that code, whose hash alone is stored: the row is useless without the code.
 */
export function sealWithCode(code: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', derive(code, 'token seal', 32), iv);
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url')).join('.');
}

export function openWithCode(code: string, sealed: string): string {
  const [iv, tag, data] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', derive(code, 'token seal', 32), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
}
