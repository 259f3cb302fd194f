// Kept apart from the rules (no imports beyond the presenter's lists) so the entity can size its
// columns by the same lengths the service checks.
import { ADDRESS_FIELDS } from './contact.presenter';

/** Fields PUT .../values writes to a column (anything else non-reserved is a custom property). */
export const STANDARD_FIELDS = [
  'firstName',
  'lastName',
  'email',
  'phone',
  'status',
  'website',
  'birthday',
  ...ADDRESS_FIELDS,
] as const;
export type StandardField = (typeof STANDARD_FIELDS)[number];
export type AddressField = (typeof ADDRESS_FIELDS)[number];

/** The longest value a standard field takes; its column has the same length. */
export const MAX_LENGTH: Record<StandardField, number> = {
  firstName: 200,
  lastName: 200,
  email: 320,
  phone: 40,
  status: 100,
  website: 2000,
  birthday: 100,
  postalCode: 40,
  city: 200,
  state: 200,
  country: 200,
  street: 300,
  houseNumber: 40,
};

/** The longest custom property name; field values record the name in a column of this length. */
export const MAX_CUSTOM_PROPERTY_NAME_LENGTH = 64;
