import { once } from 'node:events';
import { finished, pipeline, type Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { escapeLiteral, type PoolClient } from 'pg';
import { to as copyTo, type CopyToStreamQuery } from 'pg-copy-streams';
import { ConfigService } from '@nestjs/config';
import { type EnvironmentVariables, isUuid, ReadPool, ValidationError } from '@app/core';
import { FunnelsService } from '@app/workspaces';
import { csvColumns, csvLine, CsvRecordEnds } from './contacts-export.csv';
import { type BlockStretch, blockStretches, inStretch, OrderedStretches } from './contacts-export.parallel';
import { csvSelect, EXPORT_SESSION_SETTINGS, inlineLiteral, NDJSON_LINE } from './contacts-export.sql';
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
 * COPY's CSV format around a single column that holds a whole JSON line: a JSON text never holds
 * a raw control character, so with these two as delimiter and quote nothing is ever quoted and
 * each line leaves exactly as PostgreSQL wrote it (text format would double its backslashes).
 */
const JSON_LINES = `FORMAT csv, DELIMITER E'\\x02', QUOTE E'\\x01'`;

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
 * and written by PostgreSQL as they are read: `COPY (SELECT <the Contact as a line>) TO STDOUT`
 * streamed to the client. The connection is read only as fast as the client takes the body
 * (backpressure down to the server's socket), so memory stays flat whatever the size.
 */
@Injectable()
export class ContactsExportService {
  private readonly parallelMinRows: number;

  constructor(
    private readonly reads: ReadPool,
    private readonly funnels: FunnelsService,
    config: ConfigService<EnvironmentVariables, true>,
  ) {
    this.parallelMinRows = config.get('EXPORT_PARALLEL_MIN_ROWS', { infer: true });
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

    // The replica when it is fresh enough for this company, as for every read (see ReadPool).
    const client = await this.reads.session();
    const sessions = [new ExportSession(client)];
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
      const count = Number(rows[0].count);
      const columns = format === 'csv' ? csvColumns(rows[0].properties ?? []) : undefined;
      const csv = columns && csvSelect(columns);
      // In no particular order: the table is read as it lies (a sorted walk of the funnel's
      // contacts jumps around the heap, several times slower for the whole funnel).
      const statement = (stretch?: string) => {
        const where = stretch ? `${conditions} AND ${stretch}` : conditions;
        return csv
          ? `/* contacts_export */ COPY (SELECT ${csv.cells.join(',\n')}
             FROM contacts c${csv.from} WHERE ${where}) TO STDOUT WITH (FORMAT csv)`
          : `/* contacts_export */ COPY (SELECT ${NDJSON_LINE} FROM contacts c WHERE ${where})
             TO STDOUT WITH (${JSON_LINES})`;
      };
      const stretches = await this.stretches(client, conditions, count);
      const second = stretches && (await this.sharedSnapshot(client));
      if (second) sessions.push(second);
      // The COPY is the whole export, as long as the client takes to read it: the statement
      // timeout bounds the statements above, not this one.
      await client.query('SET LOCAL statement_timeout = 0');
      let body: Readable;
      if (stretches && second) {
        const ordered = new OrderedStretches(
          stretches.length,
          sessions.length,
          (reader, i) => sessions[reader].copy(statement(inStretch(stretches[i]))),
          (reader) => sessions[reader].end(),
        );
        finished(ordered, (error) => error && sessions.forEach((s) => s.drop()));
        // The first rows (or the end, or the error) have arrived: the statements run.
        await ordered.started;
        body = ordered;
      } else {
        const copy = sessions[0].copy(statement());
        finished(copy, (error) => error || sessions[0].end());
        await once(copy, 'readable');
        body = copy;
      }
      if (!columns) return { count, body };
      // A failure on either side destroys both, so the body ends in the error too.
      return { count, body: pipeline(body, new CsvRecordEnds(csvLine(columns)), () => undefined) };
    } catch (error) {
      sessions.forEach((s) => s.drop());
      throw error;
    }
  }

  /**
   * The stretches of the table a large export is read in by two connections; undefined when it
   * is read by one: below EXPORT_PARALLEL_MIN_ROWS, or when its rows are a minority of the
   * blocks they span (the funnel's index then reads them better than stretches of the table).
   */
  private async stretches(
    client: PoolClient,
    conditions: string,
    count: number,
  ): Promise<BlockStretch[] | undefined> {
    if (this.parallelMinRows === 0 || count < this.parallelMinRows) return undefined;
    const { rows } = await client.query<{ first: number | null; last: number | null; per_block: number }>(
      `SELECT (min(c.ctid)::text::point)[0]::int AS first, (max(c.ctid)::text::point)[0]::int AS last,
              (SELECT reltuples / greatest(relpages, 1) FROM pg_class WHERE oid = 'contacts'::regclass) AS per_block
       FROM contacts c WHERE ${conditions}`,
    );
    const { first, last, per_block: perBlock } = rows[0];
    if (first === null || last === null || count < ((last - first + 1) * perBlock) / 2) return undefined;
    return blockStretches(first, last, count);
  }

  /**
   * A second connection to the same server in a transaction that shares the snapshot of
   * `client`'s, ready for its COPYs; undefined when none is free or the snapshot cannot be shared.
   */
  private async sharedSnapshot(client: PoolClient): Promise<ExportSession | undefined> {
    const spare = await this.reads.spareSession(client);
    if (!spare) return undefined;
    const session = new ExportSession(spare);
    let id: string;
    try {
      id = (await client.query<{ id: string }>('SELECT pg_export_snapshot() AS id')).rows[0].id;
    } catch (error) {
      session.drop();
      throw error;
    }
    try {
      await spare.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      await spare.query(`SET TRANSACTION SNAPSHOT ${escapeLiteral(id)}`);
      await spare.query(EXPORT_SESSION_SETTINGS);
      await spare.query('SET LOCAL statement_timeout = 0');
      return session;
    } catch {
      // The first connection reads the whole export alone, as it would have.
      session.drop();
      return undefined;
    }
  }
}

/** A connection of an export, given back to the pool once, however the export ends. */
class ExportSession {
  private ended = false;

  constructor(private readonly client: PoolClient) {}

  /** Starts `sql` (a COPY TO STDOUT) on the connection; stopped early or failed, it drops the connection. */
  copy(sql: string): CopyQuery {
    const copy: CopyQuery = Object.assign(copyTo(sql), { query_timeout: LONGEST_TIMER_MS });
    this.client.query(copy);
    finished(copy, (error) => {
      copy.callback?.(error ?? undefined);
      if (error) this.drop();
    });
    return copy;
  }

  /** Its COPYs read to the end: commits the snapshot and frees the connection. */
  end(): void {
    if (this.ended) return;
    this.client.query('COMMIT').then(
      () => this.release(),
      () => this.drop(),
    );
  }

  /**
   * Releases the connection and closes its socket at once. A COPY that is still sending waits on
   * a client that no longer reads: only a closed socket tells the server to stop (and ends the
   * transaction).
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
    this.client.release(broken);
  }
}
