export * from './contact-input';
export * from './contact.presenter';
export * from './contacts-list.query';
export * from './contacts.module';
export * from './contacts.service';
export * from './dto/contact.dto';
export * from './entities';
export * from './idempotency';
