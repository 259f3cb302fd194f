import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The app's Prometheus registry: one per app instance (tests run several in one process), with
 * the default process metrics. Each domain registers its own metrics on it.
 */
@Injectable()
export class AppMetrics {
  readonly registry = new Registry();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
