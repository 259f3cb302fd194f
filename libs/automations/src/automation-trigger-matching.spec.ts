import type { ContactChange } from '@app/contacts';
import { parseTrigger, triggerMatches, TriggerSpec } from './automation-trigger-matching';

const base = {
  companyId: 'c',
  funnelId: 'f',
  contactId: 'k',
  occurredAt: new Date(),
};
const created: ContactChange = { ...base, kind: 'contact.created' };
const changed = (fieldName: string, value: string, previousValue?: string): ContactChange => ({
  ...base,
  kind: 'field.changed',
  fieldName,
  value,
  previousValue,
});
const spec = (trigger: string) => parseTrigger(trigger) as TriggerSpec;

describe(parseTrigger.name, () => {
  it('parses the three trigger forms', () => {
    expect(parseTrigger('contact.created')).toEqual({
      kind: 'contact.created',
    });
    expect(parseTrigger('status:converted')).toEqual({
      kind: 'status',
      status: 'converted',
    });
    expect(parseTrigger('field:email')).toEqual({
      kind: 'field',
      fieldName: 'email',
    });
    expect(parseTrigger('field:plan.tier')).toEqual({
      kind: 'field',
      fieldName: 'plan.tier',
    });
  });

  it('maps the legacy zip alias to postalCode', () => {
    expect(parseTrigger('field:zip')).toEqual({
      kind: 'field',
      fieldName: 'postalCode',
    });
  });

  it.each(['contact.updated', 'contact.deleted'])('parses %s', (trigger) =>
    expect(parseTrigger(trigger)).toEqual({ kind: trigger }),
  );

  it('fires contact.updated on any real change and contact.deleted on erasure only', () => {
    const base = { companyId: 'c', funnelId: 'f', contactId: 'x', occurredAt: new Date() };
    const changed = {
      ...base,
      kind: 'field.changed' as const,
      fieldName: 'city',
      previousValue: 'A',
      value: 'B',
    };
    const same = { ...changed, value: 'A' };
    const deleted = { ...base, kind: 'contact.deleted' as const };
    const created = { ...base, kind: 'contact.created' as const };
    expect(triggerMatches({ kind: 'contact.updated' }, changed)).toBe(true);
    expect(triggerMatches({ kind: 'contact.updated' }, same)).toBe(false);
    expect(triggerMatches({ kind: 'contact.updated' }, created, 'lead')).toBe(false);
    expect(triggerMatches({ kind: 'contact.updated' }, deleted)).toBe(false);
    expect(triggerMatches({ kind: 'contact.deleted' }, deleted)).toBe(true);
    expect(triggerMatches({ kind: 'contact.deleted' }, changed)).toBe(false);
    expect(triggerMatches({ kind: 'status', status: 'lead' }, deleted)).toBe(false);
  });

  it.each([
    '',
    'contact.merged',
    'status:',
    'field:',
    'status',
    'other:x',
    'field:has space',
    `field:${'a'.repeat(65)}`,
  ])('rejects %j', (trigger) => expect(parseTrigger(trigger)).toBeUndefined());
});

describe(triggerMatches.name, () => {
  it('fires contact.created on creation only', () => {
    expect(triggerMatches(spec('contact.created'), created, 'lead')).toBe(true);
    expect(triggerMatches(spec('contact.created'), changed('status', 'lead', 'converted'))).toBe(false);
  });

  it('fires status:<s> on creation when the initial status is s', () => {
    expect(triggerMatches(spec('status:lead'), created, 'lead')).toBe(true);
    expect(triggerMatches(spec('status:converted'), created, 'lead')).toBe(false);
  });

  it('fires status:<s> when the status becomes s', () => {
    expect(triggerMatches(spec('status:converted'), changed('status', 'converted', 'lead'))).toBe(true);
    expect(triggerMatches(spec('status:converted'), changed('status', 'lead', 'converted'))).toBe(false);
  });

  it('does not fire status:<s> for another field holding the value s', () => {
    expect(triggerMatches(spec('status:converted'), changed('city', 'converted', 'x'))).toBe(false);
  });

  it('fires field:<f> on a change of f, status included, but not on creation', () => {
    expect(triggerMatches(spec('field:email'), changed('email', 'a@b.c', 'x@y.z'))).toBe(true);
    expect(triggerMatches(spec('field:status'), changed('status', 'converted', 'lead'))).toBe(true);
    expect(triggerMatches(spec('field:email'), changed('phone', '+1', '+2'))).toBe(false);
    expect(triggerMatches(spec('field:email'), created, 'lead')).toBe(false);
  });

  it('fires nothing when the value is written unchanged', () => {
    expect(triggerMatches(spec('field:email'), changed('email', 'a@b.c', 'a@b.c'))).toBe(false);
    expect(triggerMatches(spec('status:lead'), changed('status', 'lead', 'lead'))).toBe(false);
  });

  it('treats an unknown previous value as a change', () => {
    expect(triggerMatches(spec('field:plan'), changed('plan', 'pro'))).toBe(true);
  });
});
