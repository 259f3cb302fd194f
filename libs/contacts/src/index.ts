export * from './automation-trigger';
export { ContactLinkEraser } from './contact-erasure';
export * from './contact-input';
export * from './contact-records';
export * from './contact-rules';
export * from './contact.presenter';
export { ContactsRepository } from './contacts.repository';
export { ContactJsonCache, CONTACT_JSON_CACHE_CHARS, CONTACT_JSON_IDLE_MS } from './contact-json.cache';
export * from './contacts-list.query';
export * from './contacts.module';
export * from './contacts.service';
export * from './dto/contact.dto';
export * from './entities';
export * from './idempotency';
export * from './contacts-list.cursor';
export * from './contacts-list.sql';
export * from './contact-counts.reader';
export * from './contacts-search.fields';
export * from './contacts-search.query';
export { ContactsSearchService, type ContactSearchPage } from './contacts-search.service';
export { ContactsExportService, EXPORT_FORMATS, type ExportFormat } from './contacts-export.service';
export { csvColumns, csvRow } from './contacts-export.csv';
export * from './contact-properties.service';
export { uniquePropertyViolated, type PropertyDefinitions } from './contact-properties.repository';
export * from './contact-property.input';
export * from './property-types';
export * from './contact-patch';
export {
  MAX_BATCH_CONTACTS,
  UPSERT_BY_STANDARD,
  type BatchContactsInput,
  type BatchItemResult,
  type BatchResult,
} from './contacts-batch';
export { ContactPropertyValuesFiller } from './contact-property-values.filler';
export { assertIds } from './contact-ids';
export {
  ContactCaptureService,
  FORM_FIELDS,
  type CapturedLead,
  type SessionDetails,
} from './contact-capture';
