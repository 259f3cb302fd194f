export * from './dev-idp';
export * from './dev-user';
export * from './resolve-identity-provider';
