import { presentContact } from '@app/contacts';
import type { Contact, ContactChange, ContactMessage } from '@app/contacts';
import { parseTrigger, triggerMatches } from './automation-trigger-matching';
import type { EnabledAutomation, NewRun } from './automations.repository';
import type { RunPayload } from './entities/automation-run.entity';

/** A change an automation fires on, with the contact as it is now (none once erased). */
export interface Match {
  automation: EnabledAutomation;
  change: ContactChange;
  contact: Contact | undefined;
}

/**
 * The automations each change fires, in change order. An automation fires only on changes of its
 * own funnel and company; a subscription to several events that one change matches is delivered
 * once. Every change but an erasure must name an existing contact.
 */
export function matchingAutomations(
  changes: ContactChange[],
  automations: EnabledAutomation[],
  contacts: Contact[],
): Match[] {
  const contactById = new Map(contacts.map((contact) => [contact.id, contact]));
  return changes.flatMap((change) => {
    const contact = contactById.get(change.contactId);
    if (!contact && change.kind !== 'contact.deleted')
      throw new Error(`contact ${change.contactId} of an automation change does not exist`);
    const receivers = new Set<string>();
    return automations
      .filter((automation) => fires(automation, change, contact?.status))
      .filter((automation) => {
        const receiver = automation.subscriptionId ?? automation.id;
        if (receivers.has(receiver)) return false;
        receivers.add(receiver);
        return true;
      })
      .map((automation) => ({ automation, change, contact }));
  });
}

/** One run per match, its payload frozen now; the runs of one change share one payload. */
export function runsFor(matches: Match[], messages: ContactMessage[]): NewRun[] {
  const payloads = new Map<ContactChange, RunPayload>();
  return matches.map(({ automation, change, contact }) => {
    const payload = payloads.get(change) ?? buildPayload(change, contact, messages);
    payloads.set(change, payload);
    return {
      automationId: automation.id,
      funnelId: change.funnelId,
      contactId: change.contactId,
      event: payload.event,
      payload,
    };
  });
}

function fires(
  automation: EnabledAutomation,
  change: ContactChange,
  contactStatus: string | undefined,
): boolean {
  if (automation.funnelId !== change.funnelId || automation.companyId !== change.companyId) return false;
  const spec = parseTrigger(automation.trigger);
  return spec !== undefined && triggerMatches(spec, change, contactStatus);
}

// The Contact JSON includes its messages, so the payload shows what the API would show now; an
// erased contact is gone, so its payload carries ids only.
function buildPayload(
  change: ContactChange,
  contact: Contact | undefined,
  messages: ContactMessage[],
): RunPayload {
  const occurredAt = change.occurredAt.toISOString();
  if (change.kind === 'contact.deleted' || !contact) {
    return {
      event: 'contact.deleted',
      funnelId: change.funnelId,
      contact: { id: change.contactId },
      change: null,
      occurredAt,
    };
  }
  return {
    event: change.kind === 'contact.created' ? 'contact.created' : 'contact.field_changed',
    funnelId: change.funnelId,
    contact: presentContact(
      contact,
      messages.filter((m) => m.contactId === contact.id),
    ) as unknown as Record<string, unknown>,
    change:
      change.kind === 'contact.created'
        ? null
        : {
            fieldName: change.fieldName!,
            previousValue: change.previousValue ?? null,
            value: change.value ?? null,
          },
    occurredAt,
  };
}
