import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { DATABASE_POOLING, DatabasePooling, sessionUrl } from './connection-pooler';

const RECONNECT_DELAY_MS = 1_000;

export interface ChangeListener {
  /** A row of the channel's table changed; `payload` names it (the trigger decides how). */
  changed(payload: string): void;
  /** Notifications may have been missed (connection lost or restored): forget everything. */
  reset(): void;
}

/**
 * One PostgreSQL connection per process that LISTENs to the channels the caches subscribe to. The
 * tables' triggers NOTIFY in the writer's transaction, so a change committed by any replica, the
 * admin CLI or plain SQL reaches every process as soon as it commits. While the connection is not
 * listening, `listening` is false and the caches read through to the database. A transaction
 * pooler delivers no notifications: behind one, it listens on DATABASE_DIRECT_URL, or never.
 */
@Injectable()
export class ChangeNotifications implements OnApplicationShutdown {
  private readonly logger = new Logger('ChangeNotifications');
  private readonly listeners = new Map<string, Set<ChangeListener>>();
  private client?: Client;
  private connecting?: Promise<void>;
  private closed = false;
  // No connection can listen (a transaction pooler and no direct URL): the caches never keep anything.
  private unavailable = false;
  listening = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(DATABASE_POOLING) private readonly pooling: DatabasePooling,
  ) {}

  /** Starts listening on first use; until then (and in processes that never read) no connection. */
  subscribe(channel: string, listener: ChangeListener): void {
    const set = this.listeners.get(channel) ?? new Set();
    set.add(listener);
    if (!this.listeners.has(channel)) {
      this.listeners.set(channel, set);
      // A channel added after connecting is listened to on a fresh connection.
      if (this.client) this.restart();
    }
    this.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.listening = false;
    await this.client?.end().catch(() => undefined);
  }

  private connect(): void {
    if (this.connecting || this.client || this.closed || this.unavailable) return;
    const url = sessionUrl(this.pooling, (this.dataSource.options as { url?: string }).url ?? '');
    if (!url) {
      this.unavailable = true;
      this.logger.log(
        'DATABASE_POOL_MODE=transaction without DATABASE_DIRECT_URL: API keys and workspaces are read from the database on every request',
      );
      return;
    }
    this.connecting = this.open(url).finally(() => (this.connecting = undefined));
  }

  private async open(url: string): Promise<void> {
    const client = new Client({ connectionString: url, application_name: 'funnel-crm-listen' });
    client.on('notification', (message) => {
      for (const listener of this.listeners.get(message.channel) ?? [])
        listener.changed(message.payload ?? '');
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      for (const channel of this.listeners.keys()) await client.query(`LISTEN "${channel}"`);
      if (this.closed) return void (await client.end());
      this.client = client;
      this.listening = true;
      // Anything cached before (while not listening nothing is) may have changed unseen.
      this.resetAll();
    } catch (error) {
      await client.end().catch(() => undefined);
      this.lost(undefined, error);
    }
  }

  private lost(client: Client | undefined, error?: unknown): void {
    if (client && client !== this.client) return;
    this.client = undefined;
    this.listening = false;
    this.resetAll();
    if (this.closed) return;
    if (error) this.logger.warn(`change notifications lost, reading through: ${(error as Error).message}`);
    setTimeout(() => this.connect(), RECONNECT_DELAY_MS).unref();
  }

  private restart(): void {
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    this.resetAll();
    void client?.end().catch(() => undefined);
  }

  private resetAll(): void {
    for (const set of this.listeners.values()) for (const listener of set) listener.reset();
  }
}
