import { randomUUID } from 'node:crypto';
import { WebhookSecretCipher } from '../webhook-secret.cipher';
import { MessageTokens } from './message-tokens';

describe(MessageTokens.name, () => {
  const tokens = new MessageTokens(
    new WebhookSecretCipher(Buffer.alloc(32, 3).toString('base64'), 'production'),
  );
  const funnelId = randomUUID();
  const contactId = randomUUID();

  it('reads back what it signed, for each kind', () => {
    const unsubscribe = { kind: 'unsubscribe', funnelId, contactId } as const;
    const click = { kind: 'click', funnelId, messageId: contactId, link: 2 } as const;
    expect(tokens.verify(tokens.sign(unsubscribe))).toEqual(unsubscribe);
    expect(tokens.verify(tokens.sign(click))).toEqual(click);
  });

  it('refuses a token whose payload or signature was changed, or one signed with another key', () => {
    const token = tokens.sign({ kind: 'unsubscribe', funnelId, contactId });
    const [payload, signature] = token.split('.');
    const otherContact = Buffer.from(`u:${funnelId}:${randomUUID()}`).toString('base64url');
    expect(tokens.verify(`${otherContact}.${signature}`)).toBeNull();
    const flipped = signature.slice(0, -2) + (signature.endsWith('AA') ? 'BB' : 'AA');
    expect(tokens.verify(`${payload}.${flipped}`)).toBeNull();
    expect(tokens.verify(`${payload}`)).toBeNull();
    expect(tokens.verify(`${token}.extra`)).toBeNull();
    const other = new MessageTokens(
      new WebhookSecretCipher(Buffer.alloc(32, 4).toString('base64'), 'production'),
    );
    expect(other.verify(token)).toBeNull();
  });

  it('refuses every other spelling of the signature, even one that decodes to the same bytes', () => {
    const token = tokens.sign({ kind: 'unsubscribe', funnelId, contactId });
    const [payload, signature] = token.split('.');
    // 32 bytes in 43 characters: the last one's two low bits are unused.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(signature.slice(-1));
    const sameBytes = signature.slice(0, -1) + alphabet[last ^ 1];
    expect(Buffer.from(sameBytes, 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
    expect(tokens.verify(`${payload}.${sameBytes}`)).toBeNull();
    expect(tokens.verify(token)).not.toBeNull();
  });

  it('never lets a token of one kind pass as another', () => {
    const open = tokens.sign({ kind: 'open', funnelId, messageId: contactId });
    expect(tokens.verify(open)).toMatchObject({ kind: 'open' });
    const [, signature] = open.split('.');
    const asUnsubscribe = Buffer.from(`u:${funnelId}:${contactId}`).toString('base64url');
    expect(tokens.verify(`${asUnsubscribe}.${signature}`)).toBeNull();
  });
});
