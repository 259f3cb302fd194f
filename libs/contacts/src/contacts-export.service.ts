import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { isUuid, sqlPool, ValidationError } from '@app/core';
import { FunnelsService } from '@app/workspaces';
import { presentContact } from './contact.presenter';
import { ContactRow, ContactsRepository } from './contacts.repository';
import { csvColumns, csvLine, csvRow } from './contacts-export.csv';
import {
  assertStatusFilter,
  ContactFilters,
  DEFAULT_SORT_FIELD,
  DEFAULT_SORT_ORDER,
  validateListQuery,
} from './contacts-list.query';
import { Placeholder, whereConditions } from './contacts-search.sql';

export const EXPORT_FORMATS = ['ndjson', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
/** Rows read from the snapshot's cursor at a time: the most an export holds in memory. */
export const EXPORT_BATCH_ROWS = 2000;

export interface ContactExport {
  /** How many contacts the export holds (counted in its snapshot). */
  count: number;
  /** The body, chunk by chunk; read to the end or returned early, it ends the snapshot. */
  chunks: AsyncGenerator<string>;
}

/**
 * A funnel's contacts under the list's filters, read from one REPEATABLE READ, read-only snapshot
 * through a server-side cursor, EXPORT_BATCH_ROWS at a time, so memory stays flat whatever the
 * size and the next rows are read only when the client has taken the previous ones.
 */
@Injectable()
export class ContactsExportService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly funnels: FunnelsService,
    private readonly rows: ContactsRepository,
  ) {}

  /**
   * Opens the export: checks the request, takes the snapshot, counts and (CSV) finds the property
   * columns; a problem up to here is an ordinary error answer. The caller must consume or return
   * `chunks`, which releases the connection.
   */
  async open(
    companyId: string,
    funnelId: string,
    format: unknown,
    filters: ContactFilters,
  ): Promise<ContactExport> {
    if (!isUuid(funnelId)) throw new ValidationError('funnelId must be a UUID');
    if (!EXPORT_FORMATS.includes(format as ExportFormat))
      throw new ValidationError(`format must be ${EXPORT_FORMATS.join(' or ')}`);
    const where = validateListQuery({
      ...filters,
      page: 0,
      limit: 1,
      sortField: DEFAULT_SORT_FIELD,
      sortOrder: DEFAULT_SORT_ORDER,
    });
    const funnel = await this.funnels.findForCompany(companyId, funnelId);
    assertStatusFilter(where, funnel.contactStatuses);

    const params: unknown[] = [];
    const p: Placeholder = (value) => `$${params.push(value)}`;
    const conditions = [
      `funnel_id = ${p(funnelId)}`,
      `company_id = ${p(companyId)}`,
      ...whereConditions(where, p),
    ];
    const matching = `FROM contacts c WHERE ${conditions.join(' AND ')}`;

    // One session holds the snapshot; ReadPool routes single statements, so the export reads the primary.
    const client = await sqlPool(this.dataSource).connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      const counted = await client.query<{ count: string; properties: string[] | null }>(
        format === 'csv'
          ? `SELECT (SELECT count(*) ${matching}) AS count,
                    (SELECT array_agg(DISTINCT k) FROM contacts c, jsonb_object_keys(c.properties) k
                     WHERE ${conditions.join(' AND ')}) AS properties`
          : `SELECT count(*) AS count ${matching}`,
        params,
      );
      // In no particular order: the table is read as it lies (a sorted walk of the funnel's
      // contacts jumps around the heap, several times slower for the whole funnel).
      await client.query(
        `DECLARE contacts_export NO SCROLL CURSOR FOR
         SELECT ${this.rows.selectList()}, ${ContactsRepository.MESSAGES} AS messages ${matching}`,
        params,
      );
      const { count, properties } = counted.rows[0];
      const columns = format === 'csv' ? csvColumns(properties ?? []) : undefined;
      return { count: Number(count), chunks: this.read(client, columns) };
    } catch (error) {
      client.release(true);
      throw error;
    }
  }

  private async *read(client: PoolClient, columns: string[] | undefined): AsyncGenerator<string> {
    let failed = true;
    try {
      if (columns) yield csvLine(columns);
      for (;;) {
        const { rows } = await client.query<ContactRow>(`FETCH ${EXPORT_BATCH_ROWS} FROM contacts_export`);
        if (!rows.length) break;
        let chunk = '';
        for (const row of rows) {
          const view = presentContact(row, row.messages);
          chunk += columns ? csvRow(view, columns) : `${JSON.stringify(view)}\n`;
        }
        yield chunk;
      }
      await client.query('COMMIT');
      failed = false;
    } finally {
      // Stopped early (the client left) or failed: the connection is dropped, which ends the
      // transaction and any statement still running on it.
      client.release(failed);
    }
  }
}
