import { Client, type QueryResultRow } from 'pg';

/**
 * One connection of its own for a periodic probe, so the probe never queues behind requests for
 * a pooled connection (under load that wait alone would look like replica lag). Reconnects on the
 * next query after a failure.
 */
export class ProbeConnection {
  private client?: Promise<Client>;

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  async query<R extends QueryResultRow>(text: string): Promise<R[]> {
    this.client ??= this.connect();
    try {
      return (await (await this.client).query<R>(text)).rows;
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.then((c) => c.end()).catch(() => undefined);
  }

  private async connect(): Promise<Client> {
    const client = new Client({
      connectionString: this.url,
      application_name: 'funnel-crm-probe',
      connectionTimeoutMillis: this.timeoutMs,
      query_timeout: this.timeoutMs,
    });
    // An ended session fails the next query, which reconnects; the event alone must not end the process.
    client.on('error', () => undefined);
    await client.connect();
    return client;
  }
}
