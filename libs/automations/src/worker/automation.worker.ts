import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { type AppConfigService, isDatabaseUnavailable } from '@app/core';
import { retryDelayMs, RetryPolicy } from '../retry-backoff';
import { WebhookSecretCipher } from '../webhook-secret.cipher';
import { AutomationRunQueue, ClaimedRun } from './automation-run.queue';
import { resolveTarget, TargetPolicy, TargetRefusedError } from '../subscriptions/webhook-target';
import { WebhookSubscriptionsRepository } from '../subscriptions/webhook-subscriptions.repository';
import { AutomationMetrics, DeliveryOutcome } from './automation.metrics';
import { DeliveryError, postWebhook } from './webhook-delivery';
import { EmailDelivery, RunSkipped } from '../mail/email-delivery';
import { SmsDelivery } from '../sms/sms-delivery';

export interface WorkerSettings {
  pollIntervalMs: number;
  concurrency: number;
  leaseMs: number;
  webhookTimeoutMs: number;
  retry: RetryPolicy;
}

/**
 * Delivers due automation runs: up to `concurrency` at a time, polling every `pollIntervalMs`
 * when idle. Started with the HTTP app (unless AUTOMATION_WORKER_ENABLED=false); on shutdown it
 * stops claiming and waits for deliveries in flight.
 */
@Injectable()
export class AutomationWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(AutomationWorker.name);
  readonly id = `${hostname().slice(0, 24)}:${process.pid}:${randomUUID().slice(0, 8)}`;
  readonly settings: WorkerSettings;
  private readonly targetPolicy: TargetPolicy;
  private readonly enabled: boolean;
  private readonly inFlight = new Set<Promise<void>>();
  private loop: Promise<void> | undefined;
  private running = false;
  private wake: (() => void) | undefined;
  /** Set while claims fail because the database is unavailable: the outage is logged once. */
  private databaseDown = false;

  constructor(
    @Inject(ConfigService) env: AppConfigService,
    private readonly queue: AutomationRunQueue,
    private readonly subscriptions: WebhookSubscriptionsRepository,
    private readonly cipher: WebhookSecretCipher,
    private readonly metrics: AutomationMetrics,
    private readonly email: EmailDelivery,
    private readonly sms: SmsDelivery,
  ) {
    this.enabled = env.get('AUTOMATION_WORKER_ENABLED', { infer: true });
    this.targetPolicy = {
      production: env.get('NODE_ENV', { infer: true }) === 'production',
      allowLoopback: env.get('WEBHOOK_ALLOW_LOOPBACK_TARGETS', { infer: true }),
    };
    this.settings = {
      pollIntervalMs: env.get('AUTOMATION_POLL_INTERVAL_MS', { infer: true }),
      concurrency: env.get('AUTOMATION_CONCURRENCY', { infer: true }),
      leaseMs: env.get('AUTOMATION_LEASE_MS', { infer: true }),
      webhookTimeoutMs: env.get('AUTOMATION_WEBHOOK_TIMEOUT_MS', { infer: true }),
      retry: {
        baseMs: env.get('AUTOMATION_RETRY_BASE_MS', { infer: true }),
        maxMs: env.get('AUTOMATION_RETRY_MAX_MS', { infer: true }),
        maxAttempts: env.get('AUTOMATION_MAX_ATTEMPTS', { infer: true }),
      },
    };
  }

  onApplicationBootstrap(): void {
    if (this.enabled) this.start();
  }

  // Before TypeORM closes the pool, so deliveries in flight can record their outcome.
  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  start(): void {
    if (this.loop) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  private async run(): Promise<void> {
    while (this.running) {
      const free = this.settings.concurrency - this.inFlight.size;
      let claimed: ClaimedRun[] = [];
      if (free > 0) {
        try {
          claimed = await this.queue.claim(this.id, free, this.settings.leaseMs);
          if (this.databaseDown) this.logger.log('claiming automation runs again: the database answers');
          this.databaseDown = false;
        } catch (error) {
          this.claimFailed(error as Error);
        }
      }
      for (const run of claimed) this.track(run, free > 0 && claimed.length === free);
      // A full claim suggests a backlog: claim again as soon as a slot frees instead of sleeping.
      if (this.running && (free === 0 || claimed.length < free))
        await this.sleep(this.settings.pollIntervalMs);
    }
    await Promise.allSettled([...this.inFlight]);
    await this.email.settled();
  }

  /**
   * An outage is logged once as a warning (claims are retried every poll meanwhile), any other
   * failure as an error each time.
   */
  private claimFailed(error: Error): void {
    if (!isDatabaseUnavailable(error)) {
      this.logger.error(`claiming automation runs failed: ${error.message}`);
      return;
    }
    if (!this.databaseDown)
      this.logger.warn(
        `claiming automation runs paused: the database is unavailable (${error.message}); retrying every ${this.settings.pollIntervalMs} ms`,
      );
    this.databaseDown = true;
  }

  private track(run: ClaimedRun, backlog: boolean): void {
    const delivery = this.process(run).finally(() => {
      this.inFlight.delete(delivery);
      // Claim again once half the slots are free: one claim for several runs, not one each.
      if (backlog && this.inFlight.size <= this.settings.concurrency / 2) this.wake?.();
    });
    this.inFlight.add(delivery);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  /** Delivers one claimed run and records the outcome; never throws. */
  private async process(run: ClaimedRun): Promise<void> {
    try {
      const { maxAttempts } = this.settings.retry;
      if (run.attempts > maxAttempts) {
        // The last allowed attempt was claimed by a worker that died before recording an outcome.
        await this.queue.fail(run, 'the last attempt was interrupted before it finished');
        return;
      }
      const started = performance.now();
      const done = (outcome: DeliveryOutcome) =>
        this.metrics.delivered(run.automation.action, outcome, (performance.now() - started) / 1000);
      try {
        const recorded = await this.deliver(run);
        done(recorded ? 'succeeded' : 'lease_lost');
        if (!recorded)
          this.logger.warn(`automation run ${run.id}: lease lost, outcome left to the new holder`);
      } catch (error) {
        // REST hooks: 410 Gone is the receiver unsubscribing (its automations and runs go with it).
        if (error instanceof DeliveryError && error.status === 410 && run.automation.subscriptionId) {
          await this.subscriptions.deleteById(run.funnelId, run.automation.subscriptionId);
          this.logger.log(
            `webhook subscription ${run.automation.subscriptionId} removed: its target answered 410`,
          );
          return;
        }
        if (error instanceof RunSkipped) {
          await this.queue.skip(run, error.message.slice(0, 500));
          done('skipped');
          return;
        }
        const reason = error instanceof DeliveryError ? error.message : `error: ${(error as Error).message}`;
        const lastError = reason.slice(0, 500);
        if (run.attempts >= maxAttempts || (error instanceof DeliveryError && error.permanent)) {
          await this.queue.fail(run, lastError);
          done('failed');
          // The receiver's problem, not the service's: a warning, visible in `automation runs`.
          this.logger.warn(`automation run ${run.id} failed after ${run.attempts} attempt(s): ${lastError}`);
        } else {
          const delay = retryDelayMs(run.attempts, this.settings.retry);
          await this.queue.retry(run, lastError, delay);
          done('retry');
          this.logger.warn(
            `automation run ${run.id} attempt ${run.attempts} failed (${lastError}); retry in ${delay} ms`,
          );
        }
      }
    } catch (error) {
      // The database is unreachable: the lease expires and another attempt picks the run up.
      this.logger.error(
        `automation run ${run.id}: recording the outcome failed: ${(error as Error).message}`,
      );
    }
  }

  /** Returns false when the run's lease was lost before the outcome could be recorded. */
  private async deliver(run: ClaimedRun): Promise<boolean> {
    const { automation } = run;
    if (automation.action === 'message') {
      return automation.messageChannel === 'email' ? this.email.deliver(run) : this.sms.deliver(run);
    }
    // A REST hook's target is checked again at every delivery (its DNS may have changed since it
    // subscribed) and the connection pinned to the address checked.
    let pinned;
    if (automation.subscriptionId) {
      try {
        pinned = await resolveTarget(automation.webhookUrl!, this.targetPolicy);
      } catch (error) {
        if (error instanceof TargetRefusedError) throw new DeliveryError(`target refused: ${error.message}`);
        throw error;
      }
    }
    await postWebhook({
      pinned,
      subscriptionId: automation.subscriptionId,
      url: automation.webhookUrl!,
      secret: automation.webhookSecretEncrypted
        ? this.cipher.decrypt(automation.webhookSecretEncrypted, run.automationId)
        : null,
      payload: run.payload,
      runId: run.id,
      automationId: run.automationId,
      attempt: run.attempts,
      timeoutMs: this.settings.webhookTimeoutMs,
    });
    return this.queue.succeed(run);
  }
}
