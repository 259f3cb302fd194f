import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Automation } from './entities/automation.entity';
import { AutomationRun, RunStatus } from './entities/automation-run.entity';

export type NewAutomation = Omit<
  Automation,
  'enabled' | 'createdAt' | 'updatedAt' | 'subscriptionId' | 'trackEngagement'
> & {
  subscriptionId?: string;
  trackEngagement?: boolean;
};

/** What the outbox writer needs of an enabled automation. */
export type EnabledAutomation = Pick<
  Automation,
  'id' | 'funnelId' | 'companyId' | 'trigger' | 'subscriptionId'
>;

export type NewRun = Pick<AutomationRun, 'automationId' | 'funnelId' | 'contactId' | 'event' | 'payload'>;

/** The SQL of the automations and automation_runs tables (the delivery queue has its own class). */
@Injectable()
export class AutomationsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get automations() {
    return this.dataSource.getRepository(Automation);
  }

  async insert(automation: NewAutomation): Promise<void> {
    await this.automations.insert(automation);
  }

  /** The funnel's automations, oldest first. */
  listForFunnel(funnelId: string): Promise<Automation[]> {
    return this.automations.find({ where: { funnelId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  // With its funnel named (the REST API's and any caller that knows it) a read or write stays on
  // the funnel's shard on Citus; by id alone (the admin CLI) it asks every shard.
  findById(id: string, funnelId?: string): Promise<Automation | null> {
    return this.automations.findOneBy({ id, ...(funnelId ? { funnelId } : {}) });
  }

  async setEnabled(id: string, funnelId: string, enabled: boolean): Promise<void> {
    await this.automations.update({ id, funnelId }, { enabled });
  }

  /** Deletes an automation with all its runs; undefined when there is no such automation. */
  deleteWithRuns(id: string, funnelId?: string): Promise<{ runsDeleted: number } | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const automation = await manager.findOne(Automation, {
        select: { id: true, funnelId: true },
        where: { id, ...(funnelId ? { funnelId } : {}) },
      });
      if (!automation) return undefined;
      const runs = await manager.delete(AutomationRun, { funnelId: automation.funnelId, automationId: id });
      await manager.delete(Automation, { id, funnelId: automation.funnelId });
      return { runsDeleted: runs.affected ?? 0 };
    });
  }

  /** The funnel's runs with their automation, newest first. */
  listRuns(funnelId: string, options: { status?: RunStatus; limit: number }): Promise<AutomationRun[]> {
    return this.dataSource.getRepository(AutomationRun).find({
      where: { funnelId, ...(options.status ? { status: options.status } : {}) },
      relations: { automation: true },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: options.limit,
    });
  }

  /** The enabled automations of these funnels, read in the caller's transaction. */
  // Plain SQL, not find() and insert(): every contact change of a funnel with automations runs
  // both, and building TypeORM's queries cost more than running them.
  enabledForFunnels(manager: EntityManager, funnelIds: string[]): Promise<EnabledAutomation[]> {
    return manager.query(
      `SELECT id, funnel_id AS "funnelId", company_id AS "companyId", trigger, subscription_id AS "subscriptionId"
       FROM automations WHERE funnel_id = ANY($1::uuid[]) AND enabled`,
      [funnelIds],
    );
  }

  async insertRuns(manager: EntityManager, runs: NewRun[]): Promise<void> {
    if (!runs.length) return;
    await manager.query(
      `INSERT INTO automation_runs (automation_id, funnel_id, contact_id, event, payload)
       SELECT r."automationId", r."funnelId", r."contactId", r.event, r.payload
       FROM jsonb_to_recordset($1::jsonb) AS r("automationId" uuid, "funnelId" uuid, "contactId" uuid, event varchar, payload jsonb)`,
      [JSON.stringify(runs)],
    );
  }

  async deleteRunsOfContact(manager: EntityManager, funnelId: string, contactId: string): Promise<void> {
    await manager.delete(AutomationRun, { funnelId, contactId });
  }

  /** An SQL expression: the enabled automations of the funnel `funnelIdSql`, as enabledForFunnels answers them (JSON). */
  static enabledJson(funnelIdSql: string): string {
    return `(SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'funnelId', funnel_id, 'companyId', company_id,
               'trigger', trigger, 'subscriptionId', subscription_id)), '[]') FROM automations
             WHERE funnel_id = ${funnelIdSql} AND enabled)`;
  }

  /** An SQL condition that holds when the funnel `funnelIdSql` has no enabled automation. */
  static noEnabledAutomation(funnelIdSql: string): string {
    return `NOT EXISTS (SELECT 1 FROM automations WHERE funnel_id = ${funnelIdSql} AND enabled)`;
  }
}
