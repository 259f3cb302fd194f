import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { insertContactMessage, type NewContactMessage } from '@app/contacts';
import { MessageEngagementService } from '../links/message-engagement.service';
import { AutomationRunQueue, type ClaimedRun } from '../worker/automation-run.queue';

/** At most this many sent emails recorded per transaction. */
const MAX_GROUP = 200;

interface Waiting {
  run: ClaimedRun;
  message: NewContactMessage;
  resolve: (recorded: boolean) => void;
  reject: (error: Error) => void;
}

/**
 * Records emails the SMTP server accepted: each message and its run's success commit together,
 * fenced by the run's lease, as one transaction for all the emails accepted meanwhile (a group
 * commit): under load one write serves many emails instead of one transaction each. Then their
 * `message_delivered` events, one batch per funnel.
 */
@Injectable()
export class SentEmailRecorder {
  private waiting: Waiting[] = [];
  private writing = false;
  private readonly reporting = new Set<Promise<void>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly queue: AutomationRunQueue,
    private readonly engagement: MessageEngagementService,
  ) {}

  /** Resolves once recorded: false when the run's lease was lost (the message is not recorded). */
  record(run: ClaimedRun, message: NewContactMessage): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ run, message, resolve, reject });
      if (!this.writing) {
        this.writing = true;
        // The emails accepted in the same turn of the event loop join this group.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length) {
      const group = this.waiting.splice(0, MAX_GROUP);
      try {
        const recorded = await this.write(group);
        for (const item of group) item.resolve(recorded.has(item.run.id));
      } catch (error) {
        for (const item of group) item.reject(error as Error);
      }
    }
    this.writing = false;
  }

  private async write(group: Waiting[]): Promise<Set<string>> {
    const recorded = await this.dataSource.transaction(async (manager) => {
      const held = await this.queue.succeedMany(
        group.map((item) => item.run),
        manager,
      );
      const messages = group.filter((item) => held.has(item.run.id)).map((item) => item.message);
      if (messages.length) await insertContactMessage(manager, messages);
      return held;
    });
    // Observed, not invented: the server accepted them. Recorded once the messages exist.
    const byFunnel = new Map<string, string[]>();
    for (const { run } of group)
      if (recorded.has(run.id)) byFunnel.set(run.funnelId, [...(byFunnel.get(run.funnelId) ?? []), run.id]);
    // Not awaited by the runs (they are done): the worker waits for them when it stops.
    for (const [funnelId, ids] of byFunnel) {
      const reported = this.engagement
        .delivered(funnelId, ids)
        .finally(() => this.reporting.delete(reported));
      this.reporting.add(reported);
    }
    return recorded;
  }

  /** Resolves once the deliveries recorded so far are reported too. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.reporting]);
  }
}
