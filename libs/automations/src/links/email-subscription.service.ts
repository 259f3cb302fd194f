import { Injectable } from '@nestjs/common';
import { assertIds } from '@app/contacts';
import { NotFoundError, ValidationError } from '@app/core';
import { FunnelsService } from '@app/workspaces';
import { MessageTokens } from '../mail/message-tokens';
import { EmailSubscriptionRepository } from './email-subscription.repository';

export const INVALID_LINK = 'This unsubscribe link is not valid (incomplete or altered)';

export interface EmailSubscription {
  contactId: string;
  subscribed: boolean;
}

/**
 * Unsubscribing is a link anyone holding the email may follow (its token is signed, so it names
 * one contact and cannot be altered); subscribing again is only an authenticated API write.
 */
@Injectable()
export class EmailSubscriptionService {
  constructor(
    private readonly tokens: MessageTokens,
    private readonly repository: EmailSubscriptionRepository,
    private readonly funnels: FunnelsService,
  ) {}

  /** Unsubscribes the contact the token names; a token that is not ours is a 404 and changes nothing. */
  async unsubscribeWithToken(token: string): Promise<void> {
    const { funnelId, contactId } = this.assertUnsubscribeToken(token);
    await this.repository.unsubscribe(funnelId, contactId);
  }

  assertUnsubscribeToken(token: string): { funnelId: string; contactId: string } {
    const meaning = this.tokens.verify(token);
    if (meaning?.kind !== 'unsubscribe') throw new NotFoundError(INVALID_LINK);
    return meaning;
  }

  async set(
    companyId: string,
    funnelId: string,
    contactId: string,
    subscribed: unknown,
  ): Promise<EmailSubscription> {
    assertIds({ funnelId, contactId });
    if (typeof subscribed !== 'boolean') throw new ValidationError('subscribed must be true or false');
    await this.funnels.findForCompany(companyId, funnelId);
    if (!(await this.repository.state(funnelId, contactId))) throw new NotFoundError('Contact not found');
    if (subscribed) await this.repository.resubscribe(funnelId, contactId);
    else await this.repository.unsubscribe(funnelId, contactId);
    return { contactId, subscribed };
  }
}
