import type { Contact, PropertyValue } from './entities/contact.entity';
import type { ContactMessage } from './entities/contact-message.entity';

/** The Contact resource of the API (REST and MCP). Unknown members are absent, never null. */
export interface ContactView {
  id: string;
  status: string;
  email?: string;
  phone?: string;
  firstName?: string;
  lastName?: string;
  name?: string;
  fullAddress?: string;
  timezone?: string;
  website?: string;
  birthday?: string;
  address?: AddressView;
  meta?: Record<string, string | boolean>;
  utmParams?: Record<string, string>;
  properties?: Record<string, PropertyValue>;
  /** ISO date-time the contact was stored. */
  createdAt: string;
  /** ISO date-time of the last write to the contact through any door (messages included). */
  updatedAt: string;
  messages: ContactMessageView[];
}

export interface AddressView {
  postalCode?: string;
  city?: string;
  state?: string;
  country?: string;
  street?: string;
  houseNumber?: string;
}

export interface ContactMessageView {
  id: string;
  name: string;
  type: string;
  content: string;
  subject?: string;
}

/** The answer of PUT .../values: the recorded field value. */
export interface ContactValuesView {
  id: string;
  fieldName: string;
  value: string;
  updatedAt: string;
}

export const ADDRESS_FIELDS = ['postalCode', 'city', 'state', 'country', 'street', 'houseNumber'] as const;
const TOP_LEVEL_FIELDS = [
  'email',
  'phone',
  'firstName',
  'lastName',
  'name',
  'fullAddress',
  'timezone',
  'website',
  'birthday',
] as const;

/** Copies the members that hold a value; undefined when none does. */
function present<T extends object>(source: T, keys: readonly (keyof T)[]): Partial<T> | undefined {
  const out: Partial<T> = {};
  for (const key of keys) {
    const value = source[key];
    if (value !== null && value !== undefined && value !== '') out[key] = value;
  }
  return Object.keys(out).length ? out : undefined;
}

const withoutNulls = <V>(record: Record<string, V | null | undefined> | null | undefined) =>
  Object.fromEntries(Object.entries(record ?? {}).filter(([, v]) => v !== null && v !== undefined)) as Record<
    string,
    V
  >;

/** The API view of a contact and its messages (oldest first, as given). */
export function presentContact(contact: Contact, messages: ContactMessage[]): ContactView {
  const view: Omit<ContactView, 'messages' | 'createdAt' | 'updatedAt'> = {
    id: contact.id,
    status: contact.status,
  };
  Object.assign(view, present(contact, TOP_LEVEL_FIELDS));

  const address = present(contact, ADDRESS_FIELDS);
  if (address) view.address = address as AddressView;

  const meta: Record<string, string | boolean> = withoutNulls(
    contact.meta as Record<string, string | boolean>,
  );
  if (contact.convertedAt) meta.ps_converted_at = new Date(contact.convertedAt).toISOString();
  if (Object.keys(meta).length) view.meta = meta;

  const utmParams = withoutNulls<string>(contact.utmParams);
  for (const [key, value] of Object.entries(utmParams)) if (value === '') delete utmParams[key];
  if (Object.keys(utmParams).length) view.utmParams = utmParams;

  // A property whose value is null still exists (the spec allows null values).
  const properties = contact.properties ?? {};
  if (Object.keys(properties).length) view.properties = { ...properties };

  return {
    ...view,
    createdAt: new Date(contact.createdAt).toISOString(),
    updatedAt: new Date(contact.updatedAt).toISOString(),
    messages: messages.map((m) => {
      const message: ContactMessageView = { id: m.id, name: m.name, type: m.type, content: m.content };
      if (m.subject) message.subject = m.subject;
      return message;
    }),
  };
}
