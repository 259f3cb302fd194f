import { createHmac, timingSafeEqual } from 'node:crypto';
import { isUuid } from '@app/core';
import type { WebhookSecretCipher } from '../webhook-secret.cipher';

/** What a token in an email's link stands for: unsubscribing a contact, opening or clicking a message. */
export type MessageToken =
  | { kind: 'unsubscribe'; funnelId: string; contactId: string }
  | { kind: 'open'; funnelId: string; messageId: string }
  | { kind: 'click'; funnelId: string; messageId: string; link: number };

const KINDS = { unsubscribe: 'u', open: 'o', click: 'c' } as const;

/**
 * Signed, unguessable tokens for the links of sent email: `<payload>.<HMAC-SHA256>`, base64url.
 * The ids are not secret, the signature is: a token cannot be made up or altered (a changed id or
 * kind fails the check), and a token of one kind never passes as another.
 */
export class MessageTokens {
  private derived: Buffer | undefined;

  // The key is derived on first use: in production without AUTOMATION_SECRET_KEY email is refused
  // before any token is needed, and the service still starts.
  constructor(private readonly cipher: WebhookSecretCipher) {}

  private get key(): Buffer {
    return (this.derived ??= this.cipher.derivedKey('funnel-crm message links v1'));
  }

  sign(token: MessageToken): string {
    const parts: string[] = [KINDS[token.kind], token.funnelId];
    if (token.kind === 'unsubscribe') parts.push(token.contactId);
    else parts.push(token.messageId);
    if (token.kind === 'click') parts.push(String(token.link));
    const payload = Buffer.from(parts.join(':')).toString('base64url');
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** The token's meaning, or null when it is malformed or its signature does not match. */
  verify(value: string): MessageToken | null {
    const [payload, signature, extra] = String(value).split('.');
    if (!payload || !signature || extra !== undefined || payload.length > 200) return null;
    // Compared as text: the last base64url character carries two unused bits, so decoding would
    // let another spelling of the same signature pass as unaltered.
    const expected = Buffer.from(this.mac(payload).toString('base64url'));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const [kind, funnelId, id, link] = Buffer.from(payload, 'base64url').toString().split(':');
    if (!isUuid(funnelId) || !isUuid(id)) return null;
    if (kind === KINDS.unsubscribe) return { kind: 'unsubscribe', funnelId, contactId: id };
    if (kind === KINDS.open) return { kind: 'open', funnelId, messageId: id };
    if (kind === KINDS.click && /^\d{1,3}$/.test(link ?? '')) {
      return { kind: 'click', funnelId, messageId: id, link: Number(link) };
    }
    return null;
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(payload).digest();
  }
}
