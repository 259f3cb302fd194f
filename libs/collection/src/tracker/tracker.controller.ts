import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '@app/auth';
import { ApiErrorResponses, NotFoundError } from '@app/core';
import { trackerScript } from './tracker-script';

const SCRIPT = {
  description: 'The tracker (JavaScript)',
  content: { 'text/javascript': { schema: { type: 'string' } } },
};

/** The tracker script pages load with one tag (docs/CAPTURING.md). */
@ApiTags('Collection')
@Controller()
export class TrackerController {
  @Get('tracker.js')
  @Public({ rateLimited: false })
  @ApiOperation({
    summary: 'The tracker script',
    description:
      'Cached for 5 minutes, then revalidated (ETag, If-None-Match → 304). Add it with `<script defer src="{base}/tracker.js" data-funnel="{funnelId}"></script>`.',
  })
  @ApiProduces('text/javascript')
  @ApiOkResponse(SCRIPT)
  latest(@Req() req: Request, @Res() res: Response): void {
    serve(req, res, 'public, max-age=300');
  }

  @Get('tracker/:file')
  @Public({ rateLimited: false })
  @ApiOperation({
    summary: 'The tracker script at its versioned URL',
    description:
      'The same script under a name derived from its content, cached for a year: pin it with Subresource Integrity (`integrity` as `admin funnels collection` prints it). An older version’s name is 404.',
  })
  @ApiParam({ name: 'file', example: '0123456789abcdef.js' })
  @ApiProduces('text/javascript')
  @ApiOkResponse(SCRIPT)
  @ApiErrorResponses({
    // Every text the API reads must be storable: a name holding a NUL byte is refused first.
    400: { description: 'The file name holds a character no text may (a NUL byte)' },
    404: { description: 'Not this version of the tracker' },
  })
  versioned(@Param('file') file: string, @Req() req: Request, @Res() res: Response): void {
    if (file !== trackerScript().versionedFile) throw new NotFoundError('No such tracker version');
    serve(req, res, 'public, max-age=31536000, immutable');
  }
}

function serve(req: Request, res: Response, cacheControl: string): void {
  const script = trackerScript();
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('ETag', script.etag);
  // Any page may load it; the routes it sends to check the page's origin.
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
  res.setHeader('Access-Control-Allow-Origin', '*');
  if (req.headers['if-none-match'] === script.etag) {
    res.status(304).end();
    return;
  }
  res.type('text/javascript').send(script.body);
}
