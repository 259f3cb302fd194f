import { Injectable } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { AppMetrics } from '@app/core';

/** Tracking events received and stored through the API, and the sizes of their batches. */
@Injectable()
export class IngestionMetrics {
  private readonly events: Counter<'outcome'>;
  private readonly batchSize: Histogram;

  constructor(metrics: AppMetrics) {
    this.events = new Counter({
      name: 'events_ingested_total',
      help: 'Tracking events received, by outcome (accepted, or duplicate of one already stored)',
      labelNames: ['outcome'],
      registers: [metrics.registry],
    });
    this.batchSize = new Histogram({
      name: 'event_batch_size',
      help: 'Events per accepted tracking batch',
      buckets: [1, 5, 10, 50, 100, 250, 500, 1000],
      registers: [metrics.registry],
    });
  }

  batchStored(received: number, accepted: number): void {
    this.events.inc({ outcome: 'accepted' }, accepted);
    if (received > accepted) this.events.inc({ outcome: 'duplicate' }, received - accepted);
    this.batchSize.observe(received);
  }
}
