import { Body, Controller, Get, Headers, HttpCode, Logger, Param, Post, Query, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import type { Readable, Transform } from 'node:stream';
import { constants, createGzip } from 'node:zlib';
import { CurrentCompany, RequirePermissions } from '@app/auth';
import { AnswersJsonText } from '@app/core';
import { ExportContactsDocs, SearchContactsDocs } from './contacts-search.docs';
import { ContactsExportService } from './contacts-export.service';
import { ContactsSearchService } from './contacts-search.service';
import { ExportContactsQueryDto } from './dto/export-contacts.query.dto';
import { SearchContactsDto } from './dto/search-contacts.dto';

const CONTENT_TYPES = { ndjson: 'application/x-ndjson; charset=utf-8', csv: 'text/csv; charset=utf-8' };

/** gzip unless the client refuses it (`gzip;q=0`) or does not name it. */
const acceptsGzip = (header: string | undefined) =>
  (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.trim().split(';');
    const q = params.map((x) => x.trim()).find((x) => x.startsWith('q='));
    return (coding.trim() === 'gzip' || coding.trim() === '*') && (!q || Number(q.slice(2)) > 0);
  });

// Registered before ContactsController, so `export` and `search` are not taken for contact ids.
@ApiTags('Contacts')
@Controller({ path: 'funnels/:funnelId/contacts', version: '1' })
export class ContactsSearchController {
  private readonly logger = new Logger('ContactsExport');

  constructor(
    private readonly searches: ContactsSearchService,
    private readonly exports: ContactsExportService,
  ) {}

  @Post('search')
  @HttpCode(200)
  @RequirePermissions('crm:read')
  @SearchContactsDocs()
  @AnswersJsonText()
  search(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Body() body: SearchContactsDto,
  ): Promise<string> {
    return this.searches.searchJson(companyId, funnelId, body);
  }

  @Get('export')
  @RequirePermissions('crm:read')
  @ExportContactsDocs()
  async export(
    @CurrentCompany() companyId: string,
    @Param('funnelId') funnelId: string,
    @Query() query: ExportContactsQueryDto,
    @Headers('accept-encoding') acceptEncoding: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const { format, ...filters } = query;
    const { count, body } = await this.exports.open(companyId, funnelId, format, filters);
    const gzip = acceptsGzip(acceptEncoding);
    res.status(200);
    res.setHeader('Content-Type', CONTENT_TYPES[format]);
    res.setHeader('Content-Disposition', `attachment; filename="contacts-${funnelId}.${format}"`);
    res.setHeader('X-Export-Count', String(count));
    res.setHeader('Vary', 'Accept-Encoding');
    if (gzip) res.setHeader('Content-Encoding', 'gzip');
    const stages: (Readable | Transform)[] = [body];
    if (gzip) stages.push(createGzip({ level: constants.Z_BEST_SPEED }));
    try {
      // Backpressure: the database connection is read only as fast as the client takes the body.
      await pipeline([...stages, res]);
    } catch (error) {
      // The status is sent: a failure (or a client that left) cuts the connection before the end.
      res.destroy();
      const code = (error as { code?: string }).code;
      if (code !== 'ERR_STREAM_PREMATURE_CLOSE')
        this.logger.warn(`export of funnel ${funnelId} cut short (${code ?? (error as Error).name})`);
    }
  }
}
