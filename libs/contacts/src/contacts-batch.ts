import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { FunnelsService } from '@app/workspaces';
import { AutomationTrigger } from './automation-trigger';
import { assertIds } from './contact-ids';
import { mergePatches, validatePatchInput } from './contact-patch';
import { ContactPropertiesService } from './contact-properties.service';
import {
  ContactPropertiesRepository,
  PropertyDefinitions,
  uniquePropertyViolated,
} from './contact-properties.repository';
import { ContactWritesRepository, UpsertKey } from './contact-writes.repository';
import type { ContactRow } from './contacts.repository';
import {
  assertIdempotencyKey,
  claimIdempotencyKey,
  fingerprint,
  pruneExpiredKeys,
  rememberResponse,
} from './idempotency';
import {
  BatchContactsInput,
  BatchResult,
  Group,
  ItemRefusal,
  answer,
  attempt,
  automationChanges,
  checkEnvelope,
  decide,
  keyOf,
  newContacts,
  presentMembers,
  rawKeys,
  sharedValue,
  sharedValueRefusal,
  upsertKeyOf,
} from './contacts-batch-items';

export {
  MAX_BATCH_CONTACTS,
  UPSERT_BY_STANDARD,
  refusingSharedValues,
  sharedValue,
} from './contacts-batch-items';
export type { BatchContactsInput, BatchItemResult, BatchResult } from './contacts-batch-items';

// Attempts of a batch whose unique value another writer took between the check and the write.
const ATTEMPTS = 3;

/**
 * Creates and upserts contacts a batch at a time with set-based SQL (one statement per kind of
 * write), while every item passes the checks of the single doors: validateCreateInput for a new
 * contact (newContactFields when its fields were checked as a change), validatePatchInput and
 * changesOf for a change, the property definitions for values.
 */
@Injectable()
export class ContactBatchWriter {
  constructor(
    private readonly dataSource: DataSource,
    private readonly funnels: FunnelsService,
    private readonly automations: AutomationTrigger,
    private readonly properties: ContactPropertiesService,
    private readonly uniques: ContactPropertiesRepository,
    private readonly writes: ContactWritesRepository,
  ) {}

  async run(
    companyId: string,
    funnelId: string,
    input: unknown,
    options: { idempotencyKey?: string } = {},
  ): Promise<BatchResult> {
    assertIds({ funnelId });
    const key = options.idempotencyKey;
    if (key !== undefined) assertIdempotencyKey(key);
    const envelope = checkEnvelope(input);
    const funnel = await this.funnels.findForCompany(companyId, funnelId);
    // A definition change of this funnel in this process is waited for without a connection.
    await this.properties.settled(funnelId);
    for (let attempt = 1; ; attempt++) {
      try {
        const written = await this.dataSource.transaction((manager) =>
          this.write(manager, { companyId, funnelId, statuses: funnel.contactStatuses }, envelope, key),
        );
        return 'present' in written ? { ...written.present(), replayed: false } : written;
      } catch (error) {
        const name = uniquePropertyViolated(error);
        if (!name) throw error;
        if (attempt === ATTEMPTS) throw sharedValue(name);
      }
    }
  }

  private async write(
    manager: EntityManager,
    tenant: { companyId: string; funnelId: string; statuses: readonly string[] },
    envelope: BatchContactsInput,
    idempotencyKey: string | undefined,
  ): Promise<BatchResult | { present: () => Omit<BatchResult, 'replayed'> }> {
    const { companyId, funnelId } = tenant;
    // One statement takes the definitions lock (shared) and the batch's upsert keys in one order,
    // and tells whether any automation could fire: each round trip counts at 100 contacts a call.
    const { noRuns } = await this.writes.lockForBatch(manager, funnelId, {
      scope: envelope.upsertBy,
      keys: envelope.upsertBy === undefined ? [] : rawKeys(envelope),
      noRuns: (funnelIdSql) => this.automations.noRunsCondition(funnelIdSql),
    });
    const definitions = await this.properties.definitionsHeld(manager, funnelId);
    const upsertKey = upsertKeyOf(envelope.upsertBy, definitions);
    if (idempotencyKey !== undefined) {
      await pruneExpiredKeys(manager, companyId);
      const requestFingerprint = fingerprint(`POST /v1/funnels/${funnelId}/contacts/batch`, envelope);
      const previous = await claimIdempotencyKey(manager, companyId, idempotencyKey, requestFingerprint);
      if (previous) return { ...(previous as Omit<BatchResult, 'replayed'>), replayed: true };
    }

    const refusals = new Map<number, ItemRefusal>();
    const groups = upsertKey
      ? await this.matchGroups(manager, funnelId, envelope, upsertKey, tenant.statuses, definitions, refusals)
      : newContacts(envelope, tenant.statuses, definitions, refusals);
    for (const group of groups) decide(group, tenant.statuses);
    await this.refuseSharedValues(manager, funnelId, groups, definitions);

    const now = new Date();
    const live = groups.filter((g) => !g.refusal);
    const updated = await this.writes.updateMany(
      manager,
      funnelId,
      live.flatMap((g) => (g.existing && g.changes ? [{ contact: g.existing, changes: g.changes }] : [])),
      now,
    );
    // Last: the insert locks the funnel's kept count until the commit.
    const created = await this.writes.insertMany(
      manager,
      { companyId, funnelId },
      live.flatMap((g) => (g.create ? [g.create] : [])),
      now,
    );
    const changes = noRuns ? [] : automationChanges(live, { companyId, funnelId }, now);
    if (changes.length) await this.automations.record(manager, changes);

    const rows = new Map<string, ContactRow>([...created, ...updated].map((r) => [r.id, r]));
    const present = () => answer(groups, refusals, rows);
    // Presented after the commit unless the answer is kept with the key: the insert holds the
    // funnel's kept count, which every other batch of the funnel waits for, until the commit.
    if (idempotencyKey === undefined) return { present };
    const result = present();
    await rememberResponse(manager, companyId, idempotencyKey, result);
    return { ...result, replayed: false };
  }

  /** The items by upsert key (items sharing one are one contact), with the contacts they match. */
  private async matchGroups(
    manager: EntityManager,
    funnelId: string,
    envelope: BatchContactsInput,
    upsertKey: UpsertKey,
    statuses: readonly string[],
    definitions: PropertyDefinitions,
    refusals: Map<number, ItemRefusal>,
  ): Promise<Group[]> {
    const byKey = new Map<string, Group>();
    envelope.contacts.forEach((item, index) => {
      const patch = attempt(() => validatePatchInput(presentMembers(item), statuses, definitions));
      if (patch instanceof ItemRefusal) return void refusals.set(index, patch);
      const key = keyOf(patch, upsertKey);
      if (key === undefined) {
        const name = upsertKey.kind === 'property' ? `properties.${upsertKey.name}` : upsertKey.kind;
        return void refusals.set(
          index,
          new ItemRefusal(400, `${name} is required to upsert by ${envelope.upsertBy}`),
        );
      }
      const group = byKey.get(key) ?? { key, indexes: [], patches: [], skipAutomationTrigger: false };
      group.indexes.push(index);
      group.patches.push(patch);
      byKey.set(key, group);
    });
    const keys = [...byKey.keys()];
    for (const row of await this.writes.lockMatches(manager, funnelId, upsertKey, keys)) {
      const group = byKey.get(row.key);
      if (group && !group.existing) group.existing = row;
    }
    const groups = [...byKey.values()];
    for (const group of groups) {
      group.skipAutomationTrigger =
        envelope.skipAutomationTrigger === true || mergePatches(group.patches).skipAutomationTrigger;
    }
    return groups;
  }

  /**
   * Refuses (409) a group whose unique property value another contact holds, or an earlier group
   * of the batch takes. The database refuses it anyway; this names the item instead of failing all.
   */
  private async refuseSharedValues(
    manager: EntityManager,
    funnelId: string,
    groups: Group[],
    definitions: PropertyDefinitions,
  ): Promise<void> {
    for (const definition of definitions.values()) {
      if (!definition.unique) continue;
      const name = definition.name;
      const wanted = new Map<Group, string>();
      for (const group of groups) {
        if (group.refusal) continue;
        const value = group.create
          ? group.create.properties[name]
          : group.changes?.find((c) => c.fieldName === name)?.value;
        if (value !== undefined && value !== null) wanted.set(group, String(value));
      }
      if (!wanted.size) continue;
      const holders = await this.uniques.holders(manager, funnelId, name, [...new Set(wanted.values())]);
      const taken = new Set<string>();
      for (const [group, value] of wanted) {
        const holder = holders.get(value);
        const self = group.create?.id ?? group.existing?.id;
        if ((holder && holder !== self) || taken.has(value)) group.refusal = sharedValueRefusal(name);
        else taken.add(value);
      }
    }
  }
}

/** A refused item's outcome: `details` only when there is more than the error itself. */
