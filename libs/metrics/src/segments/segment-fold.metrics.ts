import { Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { AppMetrics } from '@app/core';

/** The segment fold's work in this process: chunks folded, and time it waited for ingestion. */
@Injectable()
export class SegmentFoldMetrics {
  private readonly chunks: Counter;
  private readonly yielded: Counter;

  constructor(metrics: AppMetrics) {
    this.chunks = new Counter({
      name: 'segment_fold_chunks_total',
      help: 'Chunks of minutes folded into the segment rollups by this process',
      registers: [metrics.registry],
    });
    this.yielded = new Counter({
      name: 'segment_fold_yield_seconds_total',
      help: 'Seconds the segment fold waited because this process was ingesting, before a round and between chunks',
      registers: [metrics.registry],
    });
  }

  chunkFolded(): void {
    this.chunks.inc();
  }

  waitedForIngestion(ms: number): void {
    this.yielded.inc(ms / 1000);
  }
}
