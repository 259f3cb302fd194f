import { Injectable, OnModuleInit } from '@nestjs/common';
import { ContactCaptureService } from '@app/contacts';
import { ContactConversion, ContactConversions } from '@app/metrics';
import { SessionMeta } from './session-meta';

/**
 * A conversion naming a contact, through the events API or a lead form, links the session to the
 * contact: the contact takes what it lacks of the session's meta and UTM parameters.
 */
@Injectable()
export class SessionLinks implements OnModuleInit {
  constructor(
    private readonly conversions: ContactConversions,
    private readonly sessionMeta: SessionMeta,
    private readonly contacts: ContactCaptureService,
  ) {}

  onModuleInit(): void {
    this.conversions.listen((list) => this.link(list));
  }

  async link(conversions: ContactConversion[]): Promise<void> {
    for (const { funnelId, sessionId, contactId } of conversions) {
      const summary = await this.sessionMeta.summary(funnelId, sessionId);
      if (!summary) continue;
      await this.contacts.fillFromSession(
        funnelId,
        contactId,
        await this.sessionMeta.detailsOf(funnelId, summary),
      );
    }
  }
}
