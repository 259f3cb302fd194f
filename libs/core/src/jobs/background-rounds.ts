import type { Logger } from '@nestjs/common';

/**
 * The rounds of a background job in one process: at most one runs at a time, a wake during a round
 * runs one more right after it (so no change is left for the next poll), and a failed round is
 * logged without its error stopping later ones. Nothing runs before `start` or after `stop`;
 * `start` with a poll interval also wakes it every that many milliseconds. A job extends it with
 * its round, `drain`.
 */
export abstract class BackgroundRounds {
  private running?: Promise<void>;
  private again = false;
  private active = false;
  private ended = false;
  private timer?: NodeJS.Timeout;
  private interval?: number;
  private readonly pauses = new Set<() => void>();

  protected abstract readonly logger: Logger;
  /** What failed, for the warning: e.g. `copying property values failed`. */
  protected abstract readonly failure: string;

  /** One round: works until nothing is left that another process is not already working on. */
  abstract drain(): Promise<void>;

  /** The poll interval `start` was given (ms), if any. */
  protected get pollMs(): number | undefined {
    return this.interval;
  }

  /** What a wake runs: the round, after whatever the job waits for first (nothing by default). */
  protected scheduledRound(): Promise<void> {
    return this.drain();
  }

  /** Rounds run (between `start` and `stop`). */
  get started(): boolean {
    return this.active;
  }

  /** `stop` was called: a round in progress should end at its next step. */
  get stopped(): boolean {
    return this.ended;
  }

  /** Runs a round now and from now on at every wake (and every `pollMs`, when given). */
  start(pollMs?: number): void {
    this.active = true;
    this.ended = false;
    this.interval = pollMs;
    if (pollMs !== undefined) {
      clearInterval(this.timer);
      this.timer = setInterval(() => this.wake(), pollMs);
      this.timer.unref();
    }
    this.wake();
  }

  /** Starts a round now, or another right after the one running. */
  wake(): void {
    if (!this.active) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.scheduledRound()
      .catch((error: Error) => this.logger.warn(`${this.failure}: ${error.message}`))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Waits for the round running, if any (and the one a wake queued behind it). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Waits `ms` milliseconds within a round, or less when `stop` is called meanwhile. */
  protected pause(ms: number): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.pauses.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.pauses.add(done);
    });
  }

  /** No more rounds; resolves once the one running has ended. */
  stop(): Promise<void> {
    clearInterval(this.timer);
    this.active = false;
    this.ended = true;
    for (const done of [...this.pauses]) done();
    return this.idle();
  }
}
