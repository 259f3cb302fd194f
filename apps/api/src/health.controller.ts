import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { DataSource } from 'typeorm';
import { Public } from '@app/auth';
import { API_THROTTLER, PUBLIC_THROTTLER, ShutdownState } from '@app/core';

/** Probes for orchestrators: liveness (the process answers) and readiness (the database too). */
@ApiTags('Health')
// Probes come often and, behind a proxy, from one address: they must never be rate limited.
@SkipThrottle({ [API_THROTTLER]: true, [PUBLIC_THROTTLER]: true })
@Controller('health')
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly shutdown: ShutdownState,
  ) {}

  @Get('live')
  @Public()
  @ApiOperation({ summary: 'Liveness', description: '200 while the process serves HTTP.' })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get()
  @Public()
  @ApiOperation({
    summary: 'Readiness',
    description: '200 when the service and its database answer; 503 once the process is stopping.',
  })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  @ApiServiceUnavailableResponse({ description: 'The database is unreachable or the process is stopping' })
  async check(): Promise<{ status: 'ok' }> {
    // Stopping: load balancers must send new requests elsewhere while these ones finish.
    if (this.shutdown.draining) throw new ServiceUnavailableException('Shutting down');
    try {
      await this.dataSource.query('SELECT 1');
    } catch {
      throw new ServiceUnavailableException('Database unavailable');
    }
    return { status: 'ok' };
  }
}
