import { Injectable, Logger } from '@nestjs/common';
import { Gauge, Histogram } from 'prom-client';
import { AppMetrics } from '@app/core';
import { AutomationRunQueue } from './automation-run.queue';

export type DeliveryOutcome = 'succeeded' | 'retry' | 'failed' | 'skipped' | 'lease_lost';

/** The outbox backlog, read at each scrape, and each delivery's outcome and duration. */
@Injectable()
export class AutomationMetrics {
  private readonly logger = new Logger(AutomationMetrics.name);
  private readonly deliveries: Histogram<'action' | 'outcome'>;

  constructor(metrics: AppMetrics, queue: AutomationRunQueue) {
    const logger = this.logger;
    new Gauge({
      name: 'automation_runs',
      help: 'Unfinished automation runs: due (waiting for a worker) and running (leased)',
      labelNames: ['state'],
      registers: [metrics.registry],
      async collect() {
        try {
          const { due, running } = await queue.backlog();
          this.set({ state: 'due' }, due);
          this.set({ state: 'running' }, running);
        } catch (error) {
          // The rest of the scrape still answers; the gauge keeps its last value.
          logger.warn(`reading the automation backlog failed: ${(error as Error).message}`);
        }
      },
    });
    this.deliveries = new Histogram({
      name: 'automation_delivery_duration_seconds',
      help: 'Automation run attempts by action and outcome (failed = given up), with their duration',
      labelNames: ['action', 'outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [metrics.registry],
    });
  }

  delivered(action: string, outcome: DeliveryOutcome, seconds: number): void {
    this.deliveries.observe({ action, outcome }, seconds);
  }
}
