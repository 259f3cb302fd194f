import { Injectable } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { AppMetrics } from './app-metrics';

// Seconds: from a cached read to a slow chart or a webhook timing out.
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Request durations by method, route template and status, and rate-limit refusals. */
@Injectable()
export class HttpMetrics {
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  private readonly refusals: Counter<'throttler'>;

  constructor(metrics: AppMetrics) {
    this.duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request durations by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: DURATION_BUCKETS,
      registers: [metrics.registry],
    });
    this.refusals = new Counter({
      name: 'http_rate_limit_refusals_total',
      help: 'Requests refused with 429 by the rate limiter, by throttler',
      labelNames: ['throttler'],
      registers: [metrics.registry],
    });
  }

  observe(method: string, route: string | null, status: number, seconds: number): void {
    // Unmatched paths share one label, so scanners cannot grow the series without bound.
    this.duration.observe({ method, route: route ?? 'unmatched', status: String(status) }, seconds);
  }

  rateLimited(throttler: string): void {
    this.refusals.inc({ throttler });
  }
}
