import { Injectable } from '@nestjs/common';
import { MonotonicClock } from '@app/core';

/** How long after its last batch was answered this process still counts as ingesting. */
const QUIET_MS = 1000;

/**
 * Whether this process is ingesting tracking events: a batch waiting or being written, or one
 * answered within the last second. Background work that competes with ingestion for the same
 * CPUs (the segment fold) paces itself by it, so that a burst of traffic is not slowed by work
 * that can wait for the burst to pass.
 */
@Injectable()
export class IngestionActivity {
  private writers = 0;
  private lastEnded = -Infinity;

  constructor(private readonly clock: MonotonicClock) {}

  begin(): void {
    this.writers++;
  }

  end(): void {
    this.writers--;
    this.lastEnded = this.clock.now();
  }

  busy(): boolean {
    return this.writers > 0 || this.clock.now() - this.lastEnded < QUIET_MS;
  }
}
