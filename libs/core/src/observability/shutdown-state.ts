import { Injectable } from '@nestjs/common';

/** Set when the process is asked to stop: readiness fails while requests in flight finish. */
@Injectable()
export class ShutdownState {
  draining = false;
}
