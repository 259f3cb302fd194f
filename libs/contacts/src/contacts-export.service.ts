import { once } from 'node:events';
import { finished, pipeline, type Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { to as copyTo, type CopyToStreamQuery } from 'pg-copy-streams';
import { EnvironmentVariables, isUuid, LongWork, LongWorkSession, ValidationError } from '@app/core';
import { FunnelsService } from '@app/workspaces';
import { csvColumns, csvLine, CsvRecordEnds } from './contacts-export.csv';
import { NdjsonLines } from './contacts-export.ndjson';
import { csvSelect, EXPORT_SESSION_SETTINGS, inlineLiteral, ndjsonColumns } from './contacts-export.sql';
import {
  assertStatusFilter,
  ContactFilters,
  DEFAULT_SORT_FIELD,
  DEFAULT_SORT_ORDER,
  validateListQuery,
} from './contacts-list.query';
import { whereConditions } from './contacts-search.sql';

export const EXPORT_FORMATS = ['ndjson', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * The longest delay a timer takes. node-postgres bounds each query by its pool's query_timeout
 * unless the query names its own (0 falls back to the pool's); the COPY names this one.
 */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * A COPY TO query as node-postgres holds it: it calls `callback` when the query ends (which also
 * clears its read timer), and pg-copy-streams never does, so the export calls it.
 */
type CopyQuery = CopyToStreamQuery & { query_timeout: number; callback?: (error?: Error) => void };

export interface ContactExport {
  /** How many contacts the export holds (counted in its snapshot). */
  count: number;
  /** The body; read to the end or destroyed, it ends the snapshot and frees its connection. */
  body: Readable;
}

/**
 * A funnel's contacts under the list's filters, read from one REPEATABLE READ, read-only snapshot
 * and written by PostgreSQL as they are read: `COPY (SELECT <the Contact's columns>) TO STDOUT`
 * streamed to the client, the CSV row whole, the NDJSON line joined here from COPY's columns. The
 * connection is read only as fast as the client takes the body (backpressure down to the server's
 * socket), so memory stays flat whatever the size.
 */
@Injectable()
export class ContactsExportService {
  private readonly stallMs: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly longWork: LongWork,
    private readonly funnels: FunnelsService,
    config: ConfigService<EnvironmentVariables, true>,
  ) {
    this.stallMs = config.get('EXPORT_STALL_TIMEOUT_MS', { infer: true });
    this.timeoutMs = config.get('EXPORT_TIMEOUT_MS', { infer: true });
  }

  /**
   * Opens the export: checks the request, takes the snapshot, counts, (CSV) finds the property
   * columns and starts the COPY; a problem up to its first row is an ordinary error answer. The
   * caller must read `body` to the end or destroy it, which releases the connection.
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

    // COPY takes no parameters: the values are written in as literals (see inlineLiteral).
    const p = inlineLiteral;
    const conditions = [
      `c.funnel_id = ${p(funnelId)}`,
      `c.company_id = ${p(companyId)}`,
      ...whereConditions(where, p),
    ].join(' AND ');

    // A long-work connection (one of the company's few), on the replica when it is fresh enough.
    const lease = await this.longWork.session(companyId);
    const { client } = lease;
    const session = new ExportSession(lease);
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      await client.query(EXPORT_SESSION_SETTINGS);
      const { rows } = await client.query<{ count: string; properties: string[] | null }>(
        format === 'csv'
          ? `SELECT (SELECT count(*) FROM contacts c WHERE ${conditions}) AS count,
                    (SELECT array_agg(DISTINCT k) FROM contacts c, jsonb_object_keys(c.properties) k
                     WHERE ${conditions}) AS properties`
          : `SELECT count(*) AS count FROM contacts c WHERE ${conditions}`,
      );
      const columns = format === 'csv' ? csvColumns(rows[0].properties ?? []) : undefined;
      // In no particular order: the table is read as it lies (a sorted walk of the funnel's
      // contacts jumps around the heap, several times slower for the whole funnel).
      const csv = columns && csvSelect(columns);
      // The COPY is the whole export, as long as the client takes to read it: it has a bound of
      // its own, and a client that stops reading is cut off sooner (cutWhenStalled).
      await client.query(`SET LOCAL statement_timeout = ${this.timeoutMs}`);
      const copy: CopyQuery = Object.assign(
        copyTo(
          csv
            ? `/* contacts_export */ COPY (SELECT ${csv.cells.join(',\n')}
               FROM contacts c${csv.from} WHERE ${conditions}) TO STDOUT WITH (FORMAT csv)`
            : `/* contacts_export */ COPY (SELECT ${ndjsonColumns(p(funnelId)).join(',\n')}
               FROM contacts c WHERE ${conditions}) TO STDOUT`,
        ),
        { query_timeout: LONGEST_TIMER_MS },
      );
      client.query(copy);
      session.endWith(copy);
      // The first rows (or the end, or the error) have arrived: the statement runs.
      await once(copy, 'readable');
      // A failure on either side destroys both, so the body ends in the error too.
      const lines = columns ? new CsvRecordEnds(csvLine(columns)) : new NdjsonLines();
      const body = pipeline(copy, lines, () => undefined);
      return { count: Number(rows[0].count), body: cutWhenStalled(body, this.stallMs) };
    } catch (error) {
      session.drop();
      throw error;
    }
  }
}

/** The connection of one export, given back to the pool once, however the export ends. */
class ExportSession {
  private ended = false;

  private readonly client: LongWorkSession['client'];

  constructor(private readonly lease: LongWorkSession) {
    this.client = lease.client;
  }

  /**
   * Read to the end, `copy` commits the snapshot and frees the connection. Stopped early (the
   * client left) or failed, the connection is dropped: that ends the transaction and the COPY.
   */
  endWith(copy: CopyQuery): void {
    finished(copy, (error) => {
      copy.callback?.(error ?? undefined);
      if (error) return this.drop();
      this.client.query('COMMIT').then(
        () => this.release(),
        () => this.drop(),
      );
    });
  }

  /**
   * Releases the connection and closes its socket at once. A COPY that is still sending waits on
   * a client that no longer reads: only a closed socket tells the server to stop.
   */
  drop(): void {
    if (this.ended) return;
    const socket = (this.client as unknown as { connection?: { stream?: { destroy(): void } } }).connection
      ?.stream;
    this.release(true);
    socket?.destroy();
  }

  private release(broken?: boolean): void {
    if (this.ended) return;
    this.ended = true;
    this.lease.release(broken);
  }
}

/** Why an export was cut off: its client took nothing for EXPORT_STALL_TIMEOUT_MS. */
export class ExportStalledError extends Error {
  readonly code = 'EXPORT_STALLED';
}

/**
 * Cuts `body` off (destroys it, which frees its connection) once it has waited `stallMs` on a
 * client that takes nothing: the stream is paused by backpressure, every buffer to the client full.
 * A slow reader resumes it now and then and is not cut; a slow query never pauses it.
 */
function cutWhenStalled(body: Readable, stallMs: number): Readable {
  let timer: NodeJS.Timeout | undefined;
  const stop = () => clearTimeout(timer);
  body.on('pause', () => {
    stop();
    timer = setTimeout(() => body.destroy(new ExportStalledError('the client stopped reading')), stallMs);
  });
  body.on('resume', stop);
  body.once('close', stop);
  return body;
}
