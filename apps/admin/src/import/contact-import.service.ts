import { createReadStream, createWriteStream, type ReadStream, type WriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { Injectable } from '@nestjs/common';
import { Presets, SingleBar } from 'cli-progress';
import { parse } from 'csv-parse';
import { stringify, type Stringifier } from 'csv-stringify';
import { ContactsService, MAX_BATCH_CONTACTS } from '@app/contacts';
import { ValidationError } from '@app/core';
import { FunnelsService } from '@app/workspaces';
import { ColumnTarget, columnTargets, contactOfRow, ignoredColumns } from './contact-columns';

export interface ContactImportOptions {
  funnelId: string;
  file: string;
  upsertBy?: string;
  /** CSV column → contact member, for columns not named as the export names them. */
  map?: Record<string, string>;
  delimiter?: string;
  skipAutomationTrigger?: boolean;
}

export interface ContactImportSummary {
  rows: number;
  created: number;
  /** Matched by `upsertBy` and updated (or already as the row says). */
  updated: number;
  refused: number;
  /** Where the refused rows were written with their reasons; absent when none was refused. */
  refusedFile?: string;
  ignoredColumns: string[];
}

interface PendingRow {
  cells: string[];
  line: number;
  contact: Record<string, unknown>;
}

/** The refused rows of one import, with their line and reason, written from the first one on. */
class RefusedRows {
  private out?: { csv: Stringifier; file: WriteStream };

  constructor(readonly path: string) {}

  get written(): boolean {
    return this.out !== undefined;
  }

  async add(header: string[], cells: string[], line: number, reason: string): Promise<void> {
    if (!this.out) {
      const csv = stringify({ header: true, columns: [...header, 'line', 'reason'] });
      this.out = { csv, file: createWriteStream(this.path) };
      csv.pipe(this.out.file);
    }
    const { csv } = this.out;
    const row = header.map((_, i) => cells[i] ?? '');
    if (!csv.write([...row, String(line), reason]))
      await new Promise((resolve) => csv.once('drain', resolve));
  }

  async close(): Promise<void> {
    if (!this.out) return;
    this.out.csv.end();
    await finished(this.out.file);
  }
}

/** A progress bar on stderr over the file's bytes. */
function importProgress(size: number): SingleBar {
  const progress = new SingleBar(
    {
      stream: process.stderr,
      format:
        'importing |{bar}| {percentage}% | {rows} rows: {created} created, {updated} updated, {refused} refused',
      hideCursor: true,
    },
    Presets.shades_classic,
  );
  progress.start(size, 0, { rows: 0, created: 0, updated: 0, refused: 0 });
  return progress;
}

/** The CSV rows of `input` with their line numbers. */
const csvRecords = (input: ReadStream, delimiter: string) =>
  input.pipe(
    parse({ bom: true, delimiter, info: true, relax_column_count: true, skip_empty_lines: true }),
  ) as AsyncIterable<{ record: string[]; info: { lines: number } }>;

/**
 * Imports a CSV of contacts into a funnel through the batch upsert of ContactsService, so every row
 * passes the checks of the API: the file is read as a stream and written MAX_BATCH_CONTACTS rows a
 * call, so memory stays flat whatever its size. Refused rows go, with their line and reason, to
 * `<file>.refused.csv`, ready to fix and import again.
 */
@Injectable()
export class ContactImportService {
  constructor(
    private readonly funnels: FunnelsService,
    private readonly contacts: ContactsService,
  ) {}

  async import(options: ContactImportOptions): Promise<ContactImportSummary> {
    const funnel = await this.funnels.findById(options.funnelId);
    const { size } = await stat(options.file);
    const refused = new RefusedRows(`${options.file}.refused.csv`);
    // The previous run's refusals would read as this run's.
    await rm(refused.path, { force: true });

    const summary: ContactImportSummary = { rows: 0, created: 0, updated: 0, refused: 0, ignoredColumns: [] };
    let header: string[] | undefined;
    let targets: ColumnTarget[] = [];
    let pending: PendingRow[] = [];
    const refuse = async (cells: string[], line: number, reason: string) => {
      summary.refused += 1;
      await refused.add(header!, cells, line, reason);
    };

    const flush = async () => {
      if (!pending.length) return;
      const rows = pending;
      pending = [];
      const result = await this.contacts.batch(funnel.companyId, funnel.id, {
        contacts: rows.map((row) => row.contact),
        upsertBy: options.upsertBy,
        skipAutomationTrigger: options.skipAutomationTrigger ?? false,
      });
      for (const item of result.body.data) {
        if (item.status === 201) summary.created += 1;
        else if (item.status === 200) summary.updated += 1;
        else if ('error' in item) {
          const reason = item.details?.length ? item.details.join('; ') : item.error;
          await refuse(rows[item.index].cells, rows[item.index].line, reason);
        }
      }
    };

    const input = createReadStream(options.file);
    const progress = importProgress(size);
    try {
      for await (const { record, info } of csvRecords(input, options.delimiter ?? ',')) {
        if (!header) {
          header = record.map((column) => column.trim());
          targets = columnTargets(header, options.map ?? {});
          summary.ignoredColumns = ignoredColumns(header, targets);
          continue;
        }
        summary.rows += 1;
        if (record.length !== header.length) {
          await refuse(record, info.lines, `the row has ${record.length} cells, the header ${header.length}`);
        } else {
          pending.push({ cells: record, line: info.lines, contact: contactOfRow(record, targets) });
          if (pending.length === MAX_BATCH_CONTACTS) await flush();
        }
        progress.update(input.bytesRead, { ...summary });
      }
      if (!header) throw new ValidationError(`${options.file} is empty: a header row is expected`);
      await flush();
      progress.update(size, { ...summary });
    } finally {
      progress.stop();
      input.destroy();
      await refused.close();
    }
    return refused.written ? { ...summary, refusedFile: refused.path } : summary;
  }
}
