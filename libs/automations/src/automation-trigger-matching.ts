import { CUSTOM_PROPERTY_NAME, FIELD_ALIASES, type ContactChange } from '@app/contacts';

/** Parsed form of an automation's `trigger` string. */
export type TriggerSpec =
  | { kind: 'contact.created' }
  | { kind: 'contact.updated' }
  | { kind: 'contact.deleted' }
  | { kind: 'status'; status: string }
  | { kind: 'field'; fieldName: string };

/** The triggers without a parameter. */
export const CONTACT_EVENTS = ['contact.created', 'contact.updated', 'contact.deleted'] as const;

/** A contact event, `status:<status>` or `field:<fieldName>`; undefined when malformed. */
export function parseTrigger(trigger: string): TriggerSpec | undefined {
  const event = CONTACT_EVENTS.find((name) => name === trigger);
  if (event) return { kind: event };
  const separator = trigger.indexOf(':');
  if (separator < 0) return undefined;
  const [prefix, name] = [trigger.slice(0, separator), trigger.slice(separator + 1)];
  // Names as the contacts API accepts a field name (standard or custom property); a status must fit too.
  if (!CUSTOM_PROPERTY_NAME.test(name)) return undefined;
  if (prefix === 'status') return { kind: 'status', status: name };
  // A legacy alias (`zip`) fires on the field the contacts API stores it as (postalCode).
  if (prefix === 'field')
    return { kind: 'field', fieldName: Object.hasOwn(FIELD_ALIASES, name) ? FIELD_ALIASES[name] : name };
  return undefined;
}

/**
 * Whether a change fires a trigger.
 * - `contact.created` fires on creation only.
 * - `status:<s>` fires when the contact's status becomes s: on creation with initial status s
 *   (the spec runs "automations configured for the contact's initial status"), or on a change to s.
 * - `field:<f>` fires on a change of f, `field:status` included (a status change is a field change);
 *   it does not fire on creation.
 * - `contact.updated` fires on a change of any field; `contact.deleted` on the contact's erasure only.
 * A write that leaves the value as it was is not a change and fires nothing.
 */
export function triggerMatches(trigger: TriggerSpec, change: ContactChange, createdStatus?: string): boolean {
  if (change.kind === 'contact.deleted') return trigger.kind === 'contact.deleted';
  if (change.kind === 'contact.created') {
    if (trigger.kind === 'contact.created') return true;
    return trigger.kind === 'status' && createdStatus === trigger.status;
  }
  const changed = change.previousValue === undefined || change.previousValue !== change.value;
  if (!changed) return false;
  if (trigger.kind === 'status') return change.fieldName === 'status' && change.value === trigger.status;
  if (trigger.kind === 'field') return change.fieldName === trigger.fieldName;
  return trigger.kind === 'contact.updated';
}
