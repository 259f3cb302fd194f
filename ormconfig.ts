import { DataSource } from 'typeorm';
import { dataSourceOptions } from './libs/core/src/database/data-source-options';

/**
 * The one DataSource definition. The app and the admin CLI build theirs with the same
 * `dataSourceOptions`, after resolving the URL (the embedded PostgreSQL when DATABASE_URL is unset);
 * this export serves tools that need a DataSource from DATABASE_URL directly.
 */
export default new DataSource(dataSourceOptions(process.env.DATABASE_URL ?? ''));
