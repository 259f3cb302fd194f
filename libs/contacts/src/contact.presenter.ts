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
  status: string;
  sentAt?: string;
  deliveredAt?: string;
  openedAt?: string;
  clickedAt?: string;
  clicks: number;
  failure?: string;
}

/** The observed state of a message, its times as ISO text (absent until they happen). */
const MESSAGE_TIMES = ['sentAt', 'deliveredAt', 'openedAt', 'clickedAt'] as const;

/** The answer of PUT .../values: the recorded field value. */
export interface ContactValuesView {
  id: string;
  fieldName: string;
  value: string;
  updatedAt: string;
}

export const ADDRESS_FIELDS = ['postalCode', 'city', 'state', 'country', 'street', 'houseNumber'] as const;
/** The optional text members of a Contact, in the documented order. */
export const CONTACT_TEXT_FIELDS = [
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
/** The members of a Contact that hold one value: its id, status and text members. */
export const CONTACT_VALUE_FIELDS = ['id', 'status', ...CONTACT_TEXT_FIELDS] as const;
/** The members of a Contact that hold named values (`address.city`, `properties.plan`). */
export const CONTACT_OBJECT_FIELDS = ['address', 'meta', 'utmParams', 'properties'] as const;

const hasValue = (value: unknown) => value !== null && value !== undefined && value !== '';

/**
 * The members of `record` whose value passes `keep`; undefined when none does. `record` itself
 * when it keeps all of them: rows are read fresh for each answer, so nothing else holds it.
 */
function kept<V>(
  record: Record<string, V> | null | undefined,
  keep: (value: V) => boolean,
): Record<string, V> | undefined {
  if (!record) return undefined;
  let out: Record<string, V> | undefined;
  let all = true;
  for (const key in record) {
    if (keep(record[key])) (out ??= {})[key] = record[key];
    else all = false;
  }
  return all ? out && record : out;
}

/**
 * The API view of a contact and its messages (oldest first, as given), built in one pass: one
 * object per contact and per message, members in the documented order.
 */
export function presentContact(contact: Contact, messages: ContactMessage[]): ContactView {
  const view = { id: contact.id, status: contact.status } as ContactView;
  const target = view as unknown as Record<string, unknown>;
  for (const key of CONTACT_TEXT_FIELDS) if (hasValue(contact[key])) target[key] = contact[key];

  let address: AddressView | undefined;
  for (const key of ADDRESS_FIELDS) if (hasValue(contact[key])) (address ??= {})[key] = contact[key]!;
  if (address) view.address = address;

  let meta = kept(
    contact.meta as Record<string, string | boolean | null>,
    (v) => v !== null && v !== undefined,
  ) as Record<string, string | boolean> | undefined;
  if (contact.convertedAt) {
    if (meta === contact.meta) meta = { ...meta };
    (meta ??= {}).ps_converted_at = new Date(contact.convertedAt).toISOString();
  }
  if (meta) view.meta = meta;

  const utmParams = kept(contact.utmParams as Record<string, string | null>, hasValue);
  if (utmParams) view.utmParams = utmParams as Record<string, string>;

  // A property whose value is null still exists (the spec allows null values).
  const properties = kept(contact.properties, () => true);
  if (properties) view.properties = properties;

  view.createdAt = new Date(contact.createdAt).toISOString();
  view.updatedAt = new Date(contact.updatedAt).toISOString();
  view.messages = messages.map(presentMessage);
  return view;
}

function presentMessage(m: ContactMessage): ContactMessageView {
  const message = { id: m.id, name: m.name, type: m.type, content: m.content } as ContactMessageView;
  if (m.subject) message.subject = m.subject;
  message.status = m.status;
  // From the JSON of a read (text) or an entity (Date): written the same way.
  for (const key of MESSAGE_TIMES) if (m[key]) message[key] = new Date(m[key]).toISOString();
  message.clicks = m.clicks;
  if (m.failure) message.failure = m.failure;
  return message;
}
