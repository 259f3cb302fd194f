import { Contact } from './contact.entity';
import { ContactFieldValue } from './contact-field-value.entity';
import { ContactMessage } from './contact-message.entity';
import { ContactPropertyDefinition } from './contact-property-definition.entity';
import { ContactPropertyValue, RetiredContactPropertyValues } from './contact-property-value.entity';
import { ContactUniqueValue } from './contact-unique-value.entity';
import { ErasedContact, ErasedContactMessage } from './erased-contact.entity';
import { FunnelContactCount } from './funnel-contact-count.entity';
import { IdempotencyKey } from './idempotency-key.entity';

export * from './contact.entity';
export * from './contact-field-value.entity';
export * from './contact-message.entity';
export * from './contact-property-definition.entity';
export * from './contact-property-value.entity';
export * from './contact-unique-value.entity';
export * from './erased-contact.entity';
export * from './funnel-contact-count.entity';
export * from './idempotency-key.entity';
export const contactEntities = [
  Contact,
  ContactFieldValue,
  ContactMessage,
  ContactPropertyDefinition,
  ContactPropertyValue,
  RetiredContactPropertyValues,
  ContactUniqueValue,
  ErasedContact,
  ErasedContactMessage,
  FunnelContactCount,
  IdempotencyKey,
];
