import { Injectable } from '@nestjs/common';

/**
 * Milliseconds on the process's monotonic clock (`performance.now()`), for background work that
 * paces itself by how long its steps take. Injected so that its tests can set the time.
 */
@Injectable()
export class MonotonicClock {
  now(): number {
    return performance.now();
  }
}
