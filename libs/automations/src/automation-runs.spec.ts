import type { Contact, ContactChange, ContactMessage } from '@app/contacts';
import { matchingAutomations, runsFor } from './automation-runs';
import type { EnabledAutomation } from './automations.repository';

const companyId = 'company-1';
const funnelId = 'funnel-1';
const occurredAt = new Date('2026-01-31T12:00:00.000Z');

const automation = (
  id: string,
  trigger: string,
  more: Partial<EnabledAutomation> = {},
): EnabledAutomation => ({
  id,
  funnelId,
  companyId,
  trigger,
  subscriptionId: null,
  ...more,
});
const contact = (id: string, status = 'lead'): Contact =>
  ({
    id,
    funnelId,
    companyId,
    status,
    email: `${id}@example.com`,
    meta: {},
    utmParams: {},
    properties: {},
    createdAt: occurredAt,
    updatedAt: occurredAt,
  }) as unknown as Contact;
const created = (contactId: string): ContactChange => ({
  kind: 'contact.created',
  companyId,
  funnelId,
  contactId,
  occurredAt,
});
const changed = (
  contactId: string,
  fieldName: string,
  previousValue: string,
  value: string,
): ContactChange => ({
  kind: 'field.changed',
  companyId,
  funnelId,
  contactId,
  fieldName,
  previousValue,
  value,
  occurredAt,
});
const erased = (contactId: string): ContactChange => ({
  kind: 'contact.deleted',
  companyId,
  funnelId,
  contactId,
  occurredAt,
});
const firedIds = (changes: ContactChange[], automations: EnabledAutomation[], contacts: Contact[]) =>
  matchingAutomations(changes, automations, contacts).map((m) => `${m.change.contactId}:${m.automation.id}`);

describe(matchingAutomations.name, () => {
  it("fires contact.created and the initial status's automation on creation, not field or update triggers", () => {
    const automations = [
      automation('on-created', 'contact.created'),
      automation('on-lead', 'status:lead'),
      automation('on-won', 'status:won'),
      automation('on-email', 'field:email'),
      automation('on-updated', 'contact.updated'),
    ];
    expect(firedIds([created('c1')], automations, [contact('c1', 'lead')])).toEqual([
      'c1:on-created',
      'c1:on-lead',
    ]);
  });

  it('fires only the automations of the change’s own funnel and company', () => {
    const automations = [
      automation('same', 'contact.created'),
      automation('other-funnel', 'contact.created', { funnelId: 'funnel-2' }),
      automation('other-company', 'contact.created', { companyId: 'company-2' }),
    ];
    expect(firedIds([created('c1')], automations, [contact('c1')])).toEqual(['c1:same']);
  });

  it('delivers a change once per subscription, however many of its events it matches', () => {
    const automations = [
      automation('sub-a-status', 'status:won', { subscriptionId: 'sub-a' }),
      automation('sub-a-updated', 'contact.updated', { subscriptionId: 'sub-a' }),
      automation('sub-b-updated', 'contact.updated', { subscriptionId: 'sub-b' }),
      automation('plain-status', 'status:won'),
      automation('plain-field', 'field:status'),
    ];
    expect(firedIds([changed('c1', 'status', 'lead', 'won')], automations, [contact('c1', 'won')])).toEqual([
      'c1:sub-a-status',
      'c1:sub-b-updated',
      'c1:plain-status',
      'c1:plain-field',
    ]);
  });

  it('fires nothing for a write that leaves the value as it was', () => {
    const automations = [automation('on-updated', 'contact.updated'), automation('on-email', 'field:email')];
    expect(
      firedIds([changed('c1', 'email', 'a@example.com', 'a@example.com')], automations, [contact('c1')]),
    ).toEqual([]);
  });

  it('fires contact.deleted for an erased contact that no longer exists', () => {
    const automations = [
      automation('on-deleted', 'contact.deleted'),
      automation('on-updated', 'contact.updated'),
    ];
    expect(firedIds([erased('gone')], automations, [])).toEqual(['gone:on-deleted']);
  });

  it('refuses a creation or change of a contact that does not exist', () => {
    expect(() => matchingAutomations([created('ghost')], [automation('a', 'contact.created')], [])).toThrow(
      'contact ghost of an automation change does not exist',
    );
  });
});

describe(runsFor.name, () => {
  const message = (id: string, contactId: string): ContactMessage =>
    ({ id, contactId, name: 'Welcome', type: 'email', content: 'Hi', subject: null }) as ContactMessage;

  it("freezes the Contact JSON with that contact's messages only, one payload per change", () => {
    const change = created('c1');
    const matches = matchingAutomations(
      [change],
      [automation('a1', 'contact.created'), automation('a2', 'status:lead')],
      [contact('c1'), contact('c2')],
    );
    const runs = runsFor(matches, [message('m1', 'c1'), message('m2', 'c2')]);
    expect(runs.map((r) => r.automationId)).toEqual(['a1', 'a2']);
    expect(runs[0].payload).toBe(runs[1].payload);
    expect(runs[0]).toMatchObject({ funnelId, contactId: 'c1', event: 'contact.created' });
    expect(runs[0].payload).toEqual({
      event: 'contact.created',
      funnelId,
      contact: {
        id: 'c1',
        status: 'lead',
        email: 'c1@example.com',
        createdAt: occurredAt.toISOString(),
        updatedAt: occurredAt.toISOString(),
        messages: [{ id: 'm1', name: 'Welcome', type: 'email', content: 'Hi' }],
      },
      change: null,
      occurredAt: occurredAt.toISOString(),
    });
  });

  it('names the field, its previous and its new value for a change', () => {
    const matches = matchingAutomations(
      [changed('c1', 'status', 'lead', 'won')],
      [automation('a1', 'status:won')],
      [contact('c1', 'won')],
    );
    const [run] = runsFor(matches, []);
    expect(run.event).toBe('contact.field_changed');
    expect(run.payload.change).toEqual({ fieldName: 'status', previousValue: 'lead', value: 'won' });
  });

  it('carries only the id of an erased contact', () => {
    const [run] = runsFor(
      matchingAutomations([erased('gone')], [automation('a1', 'contact.deleted')], []),
      [],
    );
    expect(run.payload).toEqual({
      event: 'contact.deleted',
      funnelId,
      contact: { id: 'gone' },
      change: null,
      occurredAt: occurredAt.toISOString(),
    });
  });
});
