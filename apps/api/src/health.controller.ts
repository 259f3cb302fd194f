import { Controller, Get, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { Public } from '@app/auth';
import {
  ApiErrorResponses,
  DomainException,
  EnvironmentVariables,
  ProbeConnection,
  ShutdownState,
} from '@app/core';

const SHUTTING_DOWN = 'Shutting down';
const DATABASE_UNAVAILABLE = 'Database unavailable';

/** Probes for orchestrators: liveness (the process answers) and readiness (the database too). */
@ApiTags('Health')
@Controller('health')
export class HealthController implements OnModuleDestroy {
  // A connection of its own: readiness says whether the database answers, not whether a pool
  // shared with every company's requests has a free connection this instant.
  private readonly probe: ProbeConnection;

  constructor(
    dataSource: DataSource,
    private readonly shutdown: ShutdownState,
    config: ConfigService<EnvironmentVariables, true>,
  ) {
    this.probe = new ProbeConnection(
      (dataSource.options as { url?: string }).url ?? '',
      config.get('DATABASE_POOL_TIMEOUT_MS', { infer: true }),
    );
  }

  onModuleDestroy(): Promise<void> {
    return this.probe.close();
  }

  // Probes come often and, behind a proxy, from one address: they must never be rate limited.
  @Get('live')
  @Public({ rateLimited: false })
  @ApiOperation({ summary: 'Liveness', description: '200 while the process serves HTTP.' })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get()
  @Public({ rateLimited: false })
  @ApiOperation({
    summary: 'Readiness',
    description: '200 when the service and its database answer; 503 once the process is stopping.',
  })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  @ApiErrorResponses({
    503: {
      description: 'The database is unreachable or the process is stopping',
      examples: [DATABASE_UNAVAILABLE, SHUTTING_DOWN],
    },
  })
  async check(): Promise<{ status: 'ok' }> {
    // Stopping: load balancers must send new requests elsewhere while these ones finish.
    if (this.shutdown.draining) throw new DomainException(503, SHUTTING_DOWN);
    try {
      await this.probe.query('SELECT 1');
    } catch {
      throw new DomainException(503, DATABASE_UNAVAILABLE);
    }
    return { status: 'ok' };
  }
}
