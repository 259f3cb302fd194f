import type { EntityManager } from 'typeorm';
import type { Contact } from './entities/contact.entity';

/** A change to a contact that automations may react to. */
export interface ContactChange {
  /** `contact.created`, a value change of one field (`status` included), or the contact's erasure. */
  kind: 'contact.created' | 'field.changed' | 'contact.deleted';
  companyId: string;
  funnelId: string;
  contactId: string;
  /** The changed field for `field.changed` (standard name, `postalCode` for zip, or a custom property). */
  fieldName?: string;
  previousValue?: string | number | boolean | null;
  value?: string | number | boolean | null;
  occurredAt: Date;
}

/** Records the runs of contacts just inserted, as the insert answered them (no messages yet). */
export type NewContactsRecorder = (changes: ContactChange[], contacts: Contact[]) => Promise<void>;

/**
 * Records the automation runs a contact change triggers, inside the caller's transaction
 * (transactional outbox): the runs exist exactly when the change is committed.
 */
export abstract class AutomationTrigger {
  abstract record(manager: EntityManager, changes: ContactChange[]): Promise<void>;

  /**
   * For a writer about to insert contacts of these funnels in the caller's transaction: what
   * `record` would read is read now, or given as `read` (the value of `newContactsRead`, which the
   * writer read in a statement it sent anyway), so that after the insert the runs cost one
   * statement. By default the recorder is `record`.
   */
  async forNewContacts(
    manager: EntityManager,
    funnelIds: string[],
    read?: unknown,
  ): Promise<NewContactsRecorder> {
    void funnelIds;
    void read;
    return (changes) => this.record(manager, changes);
  }

  /**
   * An SQL expression on the funnel id `funnelIdSql` of what `forNewContacts` needs of that funnel,
   * for a writer to read in one of its own statements. By default NULL: it reads for itself.
   */
  newContactsRead(funnelIdSql: string): string {
    void funnelIdSql;
    return 'NULL';
  }

  /**
   * Removes the runs of a contact being erased (their payloads hold its personal data), inside the
   * caller's transaction; a `contact.deleted` change recorded afterwards carries ids only.
   */
  abstract forgetContact(manager: EntityManager, funnelId: string, contactId: string): Promise<void>;

  /**
   * An SQL condition on the funnel id `funnelIdSql` that holds when no change of that funnel can
   * record a run, so a writer may make the change in one statement guarded by it, with no
   * transaction and no call to `record`. By default it never holds.
   */
  noRunsCondition(funnelIdSql: string): string {
    void funnelIdSql;
    return 'false';
  }
}
