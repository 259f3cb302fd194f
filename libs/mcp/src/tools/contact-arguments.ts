import { z } from 'zod';
import {
  ADDRESS_FIELDS,
  DEFAULT_LIMIT,
  DEFAULT_SORT_FIELD,
  DEFAULT_SORT_ORDER,
  FIELD_ALIASES,
  MAX_CURSOR_LENGTH,
  MAX_LIMIT,
  SORT_FIELDS,
  SORT_ORDERS,
  STANDARD_FIELDS,
} from '@app/contacts';
import { storableString } from '@app/core';

// The arguments several contact tools share, each built from the contacts domain's own rules.

export const contactId = z.string().describe('The contact id');
// Text the tools store follows the REST rule (no NUL, no unpaired surrogate); lengths are the service's.
export const optionalText = (description: string) => storableString().optional().describe(description);
// `postalCode (zip is an alias)`: each standard field with the legacy names that stand for it.
export const STANDARD_FIELDS_TEXT = STANDARD_FIELDS.map((field) => {
  const aliases = Object.keys(FIELD_ALIASES).filter((alias) => FIELD_ALIASES[alias] === field);
  return aliases.length ? `${field} (${aliases.join(', ')} is an alias)` : field;
}).join(', ');
export const address = z
  .strictObject(Object.fromEntries(ADDRESS_FIELDS.map((field) => [field, storableString().optional()])))
  .optional()
  .describe('Postal address; every part optional');
// A value of another type is answered with the types a value may have, not zod's "Invalid input".
export const propertyValue = z.union([storableString(), z.number(), z.boolean()], {
  error: 'expected a string, a number or a boolean',
});
export const skipAutomationTrigger = z
  .boolean()
  .optional()
  .describe('true skips the automations this change would trigger (default false)');

/** Sorting and page size, the same for a list and a search. */
export const sorting = {
  sortField: z.enum(SORT_FIELDS).default(DEFAULT_SORT_FIELD).describe('Field to sort by'),
  sortOrder: z
    .literal([...SORT_ORDERS])
    .default(DEFAULT_SORT_ORDER)
    .describe('-1 descending, 1 ascending (missing values sort lowest)'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .default(DEFAULT_LIMIT)
    .describe(`Page size, 1 to ${MAX_LIMIT}`),
};

export const cursor = (description: string) =>
  z.string().max(MAX_CURSOR_LENGTH).optional().describe(description);
