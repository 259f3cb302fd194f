import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
// Development and tests only: production refuses to store a secret without AUTOMATION_SECRET_KEY.
const DEVELOPMENT_KEY = createHash('sha256').update('funnel-crm development automation key').digest();

export class MissingSecretKeyError extends Error {
  constructor() {
    super('AUTOMATION_SECRET_KEY is required to store or use webhook secrets when NODE_ENV=production');
  }
}

/**
 * Webhook secrets must stay usable for HMAC, so they cannot be hashed like API keys; they are
 * encrypted at rest with AES-256-GCM instead. The automation id is the associated data, so a
 * ciphertext copied onto another automation does not decrypt.
 */
export class WebhookSecretCipher {
  private readonly key: Buffer | undefined;

  constructor(configuredKey: string | undefined, nodeEnv: string) {
    if (configuredKey) {
      this.key = Buffer.from(configuredKey, /^[0-9a-fA-F]{64}$/.test(configuredKey) ? 'hex' : 'base64');
    } else if (nodeEnv !== 'production') {
      this.key = DEVELOPMENT_KEY;
    }
  }

  /** False in production without AUTOMATION_SECRET_KEY: secrets can then be neither stored nor used. */
  get hasKey(): boolean {
    return this.key !== undefined;
  }

  encrypt(secret: string, automationId: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.requireKey(), iv);
    cipher.setAAD(Buffer.from(automationId));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** Throws when the value was not encrypted with this key for this automation. */
  decrypt(stored: string, automationId: string): string {
    const [version, iv, tag, ciphertext] = stored.split('.');
    if (version !== VERSION || !iv || !tag || ciphertext === undefined) {
      throw new Error('unrecognised webhook secret format');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.requireKey(), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(automationId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }

  /**
   * A key for one purpose (e.g. signing unsubscribe links), derived from the same secret key so an
   * operator keeps one key; a token of one purpose never verifies as another's.
   */
  derivedKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.requireKey(), Buffer.alloc(0), purpose, 32));
  }

  private requireKey(): Buffer {
    if (!this.key) throw new MissingSecretKeyError();
    return this.key;
  }
}
