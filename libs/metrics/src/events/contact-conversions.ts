import { Injectable } from '@nestjs/common';
import type { ConversionFields, TrackedEvent } from './event-types';

/** A session that converted into a contact: a `conversion` event with its `contactId`, stored. */
export interface ContactConversion {
  funnelId: string;
  sessionId: string;
  contactId: string;
}

type Listener = (conversions: ContactConversion[]) => Promise<void>;

/**
 * Tells the domain that links sessions to contacts (browser collection) of the conversions an
 * ingested batch named a contact for, whichever door the batch came through. Metrics cannot
 * import that domain (it imports metrics), so it registers here.
 */
@Injectable()
export class ContactConversions {
  private listener?: Listener;

  listen(listener: Listener): void {
    this.listener = listener;
  }

  /** Called once the batch is committed. */
  async stored(funnelId: string, events: TrackedEvent[]): Promise<void> {
    if (!this.listener) return;
    const conversions = events
      .filter((e) => e.type === 'conversion' && (e.fields as ConversionFields).contactId)
      .map((e) => ({
        funnelId,
        sessionId: e.sessionId,
        contactId: (e.fields as ConversionFields).contactId as string,
      }));
    if (conversions.length) await this.listener(conversions);
  }
}
