import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AutomationTrigger, ContactChange } from './automation-trigger';

/** Records automation runs for contact changes (the outbox writer). */
@Injectable()
export class AutomationsService extends AutomationTrigger {
  async record(_manager: EntityManager, _changes: ContactChange[]): Promise<void> {
    // Filled in with the automation tables.
  }
}
