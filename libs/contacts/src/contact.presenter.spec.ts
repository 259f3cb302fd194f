import { presentContact } from './contact.presenter';
import type { Contact } from './entities/contact.entity';
import type { ContactMessage } from './entities/contact-message.entity';

const contact = (overrides: Partial<Contact> = {}): Contact =>
  ({
    id: 'c1',
    funnelId: 'f1',
    companyId: 'k1',
    status: 'lead',
    email: null,
    phone: null,
    firstName: null,
    lastName: null,
    name: null,
    fullAddress: null,
    timezone: null,
    website: null,
    birthday: null,
    postalCode: null,
    city: null,
    state: null,
    country: null,
    street: null,
    houseNumber: null,
    convertedAt: null,
    meta: {},
    utmParams: {},
    properties: {},
    createdAt: new Date('2026-01-31T12:00:00.000Z'),
    updatedAt: new Date('2026-02-01T08:30:00.000Z'),
    ...overrides,
  }) as Contact;

describe(presentContact.name, () => {
  it('leaves every unknown member out', () => {
    expect(presentContact(contact(), [])).toEqual({
      id: 'c1',
      status: 'lead',
      createdAt: '2026-01-31T12:00:00.000Z',
      updatedAt: '2026-02-01T08:30:00.000Z',
      messages: [],
    });
  });

  it('groups the address and shows it only when a component is known', () => {
    expect(presentContact(contact({ city: 'Berlin', houseNumber: '7' }), []).address).toEqual({
      city: 'Berlin',
      houseNumber: '7',
    });
  });

  it('puts ps_converted_at from its column into meta with the stored members', () => {
    const view = presentContact(
      contact({
        convertedAt: new Date('2026-01-02T03:04:05.678Z'),
        meta: { ps_source: 'funnel', ps_embed: false },
      }),
      [],
    );
    expect(view.meta).toEqual({
      ps_source: 'funnel',
      ps_embed: false,
      ps_converted_at: '2026-01-02T03:04:05.678Z',
    });
  });

  it('drops empty UTM values and null meta members', () => {
    const view = presentContact(
      contact({ utmParams: { utm_source: '', utm_medium: undefined }, meta: { ps_timezone: null as never } }),
      [],
    );
    expect(view).not.toHaveProperty('utmParams');
    expect(view).not.toHaveProperty('meta');
  });

  it('keeps properties whose value is null, false or 0', () => {
    expect(presentContact(contact({ properties: { a: null, b: false, c: 0 } }), []).properties).toEqual({
      a: null,
      b: false,
      c: 0,
    });
  });

  it('shows a subject only for messages that have one, and members in the resource order', () => {
    const messages = [
      {
        id: 'm1',
        name: 'Welcome',
        type: 'email',
        subject: 'Hi',
        content: 'Hello',
        status: 'opened',
        sentAt: new Date('2026-01-02T03:04:05.006Z'),
        deliveredAt: new Date('2026-01-02T03:04:05.006Z'),
        // A read's JSON carries PostgreSQL's text: written as the API's ISO time all the same.
        openedAt: '2026-01-02T04:00:00.123456+00:00' as unknown as Date,
        clickedAt: null,
        clicks: 0,
        failure: null,
      },
      {
        id: 'm2',
        name: 'Reminder',
        type: 'sms',
        subject: null,
        content: 'Soon',
        status: 'failed',
        clicks: 0,
        failure: 'unreachable',
      },
    ] as ContactMessage[];
    const view = presentContact(contact({ email: 'a@example.com', city: 'Rome' }), messages);
    expect(view.messages).toEqual([
      {
        id: 'm1',
        name: 'Welcome',
        type: 'email',
        content: 'Hello',
        subject: 'Hi',
        status: 'opened',
        sentAt: '2026-01-02T03:04:05.006Z',
        deliveredAt: '2026-01-02T03:04:05.006Z',
        openedAt: '2026-01-02T04:00:00.123Z',
        clicks: 0,
      },
      {
        id: 'm2',
        name: 'Reminder',
        type: 'sms',
        content: 'Soon',
        status: 'failed',
        clicks: 0,
        failure: 'unreachable',
      },
    ]);
    expect(Object.keys(view.messages[0])).toEqual([
      'id',
      'name',
      'type',
      'content',
      'subject',
      'status',
      'sentAt',
      'deliveredAt',
      'openedAt',
      'clicks',
    ]);
    expect(Object.keys(view)).toEqual([
      'id',
      'status',
      'email',
      'address',
      'createdAt',
      'updatedAt',
      'messages',
    ]);
  });
});
