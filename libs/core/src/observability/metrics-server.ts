import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfigService } from '../config/app-config';
import { AppMetrics } from './app-metrics';

/**
 * Serves `GET /metrics` (Prometheus text) on METRICS_PORT, apart from the public port, so the
 * figures are reachable by the scraper inside the cluster and never through the ingress.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MetricsServer.name);
  private server?: Server;

  constructor(
    @Inject(ConfigService) private readonly config: AppConfigService,
    private readonly metrics: AppMetrics,
  ) {}

  /** The port it listens on (METRICS_PORT=0 picks a free one). */
  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  async onApplicationBootstrap(): Promise<void> {
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      this.metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'Content-Type': this.metrics.registry.contentType }).end(text),
        (error: Error) => {
          this.logger.error(`collecting metrics failed: ${error.message}`);
          res.writeHead(503).end();
        },
      );
    });
    const port = this.config.get('METRICS_PORT', { infer: true });
    const listen = (on: number) =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(on, () => {
          server.off('error', reject);
          resolve();
        });
      });
    await listen(port).catch((error: NodeJS.ErrnoException) => {
      // A second local instance should not stop development; in production the scraper expects
      // this port, so a busy one stops the start (docs/CONFIGURATION.md).
      if (error.code !== 'EADDRINUSE' || this.config.get('NODE_ENV', { infer: true }) === 'production')
        throw error;
      this.logger.warn(`METRICS_PORT ${port} is in use; metrics take a free port instead`);
      return listen(0);
    });
    this.server = server;
    this.logger.log(`metrics on port ${this.port} at /metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
