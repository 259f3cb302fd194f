import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@app/core';
import { databaseSchema } from './db/schema';

/**
 * The one DataSource definition. The app and the admin CLI build theirs with the same
 * `dataSourceOptions` and `databaseSchema`, after resolving the URL (the embedded PostgreSQL when
 * DATABASE_URL is unset); this export serves tools that need a DataSource from DATABASE_URL directly.
 */
export default new DataSource(dataSourceOptions(process.env.DATABASE_URL ?? '', databaseSchema));
