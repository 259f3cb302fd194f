import { Contact } from './contact.entity';
import { ContactFieldValue } from './contact-field-value.entity';
import { ContactMessage } from './contact-message.entity';

export * from './contact.entity';
export * from './contact-field-value.entity';
export * from './contact-message.entity';
export const contactEntities = [Contact, ContactFieldValue, ContactMessage];
