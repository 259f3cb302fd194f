import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { Client } from 'pg';
import type { EntityManager } from 'typeorm';
import { AppModule } from '../../apps/api/src/app.module';
import { AutomationTrigger, ContactChange } from '@app/contacts';
import { validateEnv } from '@app/core';
import { configureApp } from '../../apps/api/src/configure-app';
import { createTestDatabase } from './database';
import type { TestApp } from './app';

export interface RecordedCall {
  changes: ContactChange[];
  /** Whether the contact was visible through the caller's transaction... */
  visibleInTransaction: boolean;
  /** ...and not yet to another connection (so the call happened inside the transaction). */
  visibleOutside: boolean;
}

/**
 * An AutomationTrigger that records each call and checks it runs inside the contact's
 * transaction; `failNext` makes the next call throw, to show the change is rolled back with it.
 */
export class RecordingTrigger extends AutomationTrigger {
  readonly calls: RecordedCall[] = [];
  failNext = false;
  constructor(private readonly databaseUrl: () => string) {
    super();
  }

  async record(manager: EntityManager, changes: ContactChange[]): Promise<void> {
    const [change] = changes;
    // The change's own effect: the new contact, or the field-value record of this change.
    const [sql, params] =
      change.kind !== 'field.changed'
        ? ['SELECT 1 FROM contacts WHERE id = $1', [change.contactId]]
        : [
            "SELECT 1 FROM contact_field_values WHERE contact_id = $1 AND field_name = $2 AND date_trunc('milliseconds', created_at) = $3",
            [change.contactId, change.fieldName, change.occurredAt],
          ];
    const inside: unknown[] = await manager.query(sql, params);
    const client = new Client({ connectionString: this.databaseUrl() });
    await client.connect();
    try {
      const outside = await client.query(sql, params);
      this.calls.push({
        changes,
        visibleInTransaction: inside.length > 0,
        visibleOutside: (outside.rowCount ?? 0) > 0,
      });
    } finally {
      await client.end();
    }
    if (this.failNext) {
      this.failNext = false;
      throw new Error('automation storage failed');
    }
  }

  // Erasure is tested against the real automations (test/contacts-erasure.e2e-spec.ts).
  async forgetContact(): Promise<void> {}
}

/** The real app on a fresh database, with AutomationTrigger replaced by a RecordingTrigger. */
export async function startAppWithRecordingTrigger(): Promise<TestApp & { trigger: RecordingTrigger }> {
  const db = await createTestDatabase();
  const env = validateEnv({
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    RATE_LIMIT_PER_MINUTE: '100000',
  });
  const trigger = new RecordingTrigger(() => db.url);
  const moduleRef = await Test.createTestingModule({
    imports: [AppModule.forRoot({ databaseUrl: db.url, env })],
  })
    .overrideProvider(AutomationTrigger)
    .useValue(trigger)
    .compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({
    bodyParser: false,
    logger: ['error'],
  });
  configureApp(app, env);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  return {
    app,
    trigger,
    baseUrl: `http://127.0.0.1:${port}`,
    databaseUrl: db.url,
    env,
    close: async () => {
      await app.close();
      await db.drop();
    },
  };
}
