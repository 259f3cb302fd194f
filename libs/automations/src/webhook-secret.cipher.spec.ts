import { randomBytes, randomUUID } from 'node:crypto';
import { MissingSecretKeyError, WebhookSecretCipher } from './webhook-secret.cipher';

describe(WebhookSecretCipher.name, () => {
  const key = randomBytes(32);
  const cipher = new WebhookSecretCipher(key.toString('base64'), 'production');
  const id = randomUUID();

  it('round-trips a secret without storing it in clear', () => {
    const stored = cipher.encrypt('s3cret-value-0123456789', id);
    expect(stored).not.toContain('s3cret');
    expect(cipher.decrypt(stored, id)).toBe('s3cret-value-0123456789');
  });

  it('uses a fresh nonce for every encryption', () => {
    expect(cipher.encrypt('same', id)).not.toBe(cipher.encrypt('same', id));
  });

  it('accepts the key as hex too', () => {
    const hex = new WebhookSecretCipher(key.toString('hex'), 'production');
    expect(hex.decrypt(cipher.encrypt('x', id), id)).toBe('x');
  });

  it('refuses a ciphertext moved to another automation', () => {
    expect(() => cipher.decrypt(cipher.encrypt('x', id), randomUUID())).toThrow();
  });

  it('refuses a ciphertext made with another key', () => {
    const other = new WebhookSecretCipher(randomBytes(32).toString('base64'), 'production');
    expect(() => other.decrypt(cipher.encrypt('x', id), id)).toThrow();
  });

  it('says whether it has a key', () => {
    expect(cipher.hasKey).toBe(true);
    expect(new WebhookSecretCipher(undefined, 'production').hasKey).toBe(false);
  });

  it('refuses to work without a key in production', () => {
    expect(() => new WebhookSecretCipher(undefined, 'production').encrypt('x', id)).toThrow(
      MissingSecretKeyError,
    );
  });

  it('falls back to a development key outside production', () => {
    const dev = new WebhookSecretCipher(undefined, 'development');
    expect(dev.decrypt(dev.encrypt('x', id), id)).toBe('x');
  });
});
