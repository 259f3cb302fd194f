import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { EventsService } from '@app/metrics';
import { AdminModule } from '../apps/admin/src/admin.module';
import { DemoSeedService } from '../apps/admin/src/demo/demo-seed.service';
import { createTestDatabase } from './support/database';

// Seeding ingests 30 days of traffic through the real event pipeline, twice here.
jest.setTimeout(120_000);

describe('demo seed: all or nothing', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let app: INestApplicationContext;

  beforeAll(async () => {
    db = await createTestDatabase();
    app = await NestFactory.createApplicationContext(AdminModule.forRoot({ databaseUrl: db.url }), {
      logger: false,
    });
  });
  afterAll(async () => {
    await app.close();
    await db.drop();
  });

  async function count(sql: string, params: unknown[] = []): Promise<number> {
    const [row] = await app.get(DataSource).query(`SELECT count(*)::int AS n FROM ${sql}`, params);
    return row.n;
  }

  it('a seed failing part-way leaves no demo company, and the rerun makes the whole demo', async () => {
    const events = app.get(EventsService);
    const record = events.record.bind(events);
    let calls = 0;
    // The second funnel's traffic fails: the company, a funnel and its data are in by then.
    const failing = jest.spyOn(events, 'record').mockImplementation(async (funnelId, batch) => {
      calls += 1;
      if (calls > 3) throw new Error('ingestion failed part-way');
      return record(funnelId, batch);
    });
    const seed = app.get(DemoSeedService);
    await expect(seed.seed(new Date('2026-11-20T12:00:00Z'))).rejects.toThrow('ingestion failed part-way');
    failing.mockRestore();
    expect(calls).toBeGreaterThan(3);
    const leftFunnels: { id: string }[] = await app.get(DataSource).query('SELECT "id" FROM "funnels"');
    expect(leftFunnels.length).toBeGreaterThan(0);
    expect(await count(`"companies" WHERE "subscription_id" = 'sub_demo'`)).toBe(0);

    const result = await seed.seed(new Date('2026-11-20T12:00:00Z'));
    expect(result.created).toBe(true);
    expect(result.funnelIds).toHaveLength(2);
    expect(await count('"companies"')).toBe(1);
    expect(await count('"workspaces"')).toBe(1);
    expect(await count('"funnels"')).toBe(2);
    expect(await count('"contacts"')).toBe(220);
    expect(await count('"metric_events" WHERE "funnel_id" <> ALL($1::uuid[])', [result.funnelIds])).toBe(0);
    expect(
      await count('"metric_events" WHERE "funnel_id" = ANY($1::uuid[])', [result.funnelIds]),
    ).toBeGreaterThan(0);
    const oldIds = leftFunnels.map((f) => f.id);
    expect(await count('"metric_sessions" WHERE "funnel_id" = ANY($1::uuid[])', [oldIds])).toBe(0);

    const again = await seed.seed(new Date('2026-11-20T12:00:00Z'));
    expect(again).toMatchObject({ created: false, companyId: result.companyId, funnelIds: result.funnelIds });
  });
});
