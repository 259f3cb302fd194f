export * from './browser-clients.middleware';
export * from './oauth-config.service';
export * from './oauth-documents';
export * from './oauth.module';
export * from './entities';
