import { Logger } from '@nestjs/common';
import { BackgroundRounds } from './background-rounds';

/** A job whose round waits until released, counting how many began. */
class GatedJob extends BackgroundRounds {
  readonly warnings: string[] = [];
  protected readonly logger = { warn: (message: string) => this.warnings.push(message) } as unknown as Logger;
  protected readonly failure = 'folding failed';
  began = 0;
  fail = false;
  release: () => void = () => undefined;

  drain(): Promise<void> {
    this.began++;
    if (this.fail) return Promise.reject(new Error('database unavailable'));
    return new Promise<void>((resolve) => (this.release = resolve));
  }
}

function gatedRounds() {
  const job = new GatedJob();
  return {
    rounds: job,
    warnings: job.warnings,
    began: () => job.began,
    release: () => job.release(),
    failNext: () => (job.fail = true),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('BackgroundRounds', () => {
  it('runs nothing before start and after stop', async () => {
    const job = gatedRounds();
    job.rounds.wake();
    expect(job.began()).toBe(0);
    expect(job.rounds.started).toBe(false);
    job.rounds.start();
    expect(job.began()).toBe(1);
    const stopped = job.rounds.stop();
    expect(job.rounds.stopped).toBe(true);
    job.release();
    await stopped;
    job.rounds.wake();
    expect(job.began()).toBe(1);
  });

  it('runs one more round after the running one, however many wakes came meanwhile', async () => {
    const job = gatedRounds();
    job.rounds.start();
    job.rounds.wake();
    job.rounds.wake();
    job.rounds.wake();
    expect(job.began()).toBe(1);
    job.release();
    await tick();
    expect(job.began()).toBe(2);
    job.release();
    await job.rounds.idle();
    expect(job.began()).toBe(2);
    await job.rounds.stop();
  });

  it('logs a failed round and runs the next wake', async () => {
    const job = gatedRounds();
    job.failNext();
    job.rounds.start();
    await job.rounds.idle();
    expect(job.warnings).toEqual(['folding failed: database unavailable']);
    job.rounds.wake();
    expect(job.began()).toBe(2);
    await job.rounds.stop();
  });

  it('wakes itself every poll interval once started with one', async () => {
    const job = gatedRounds();
    job.rounds.start(5);
    job.release();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(job.began()).toBeGreaterThanOrEqual(2);
    const stopping = job.rounds.stop();
    job.release();
    await stopping;
    const count = job.began();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(job.began()).toBe(count);
  });

  it('ends a pause within a round at stop, and pauses no more once stopped', async () => {
    class PausingJob extends BackgroundRounds {
      protected readonly logger = { warn: () => undefined } as unknown as Logger;
      protected readonly failure = 'pausing failed';
      paused = 0;
      async drain(): Promise<void> {
        await this.pause(60_000);
        this.paused++;
        await this.pause(60_000);
        this.paused++;
      }
    }
    const job = new PausingJob();
    job.start();
    const started = performance.now();
    await tick();
    await job.stop();
    expect(job.paused).toBe(2);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
