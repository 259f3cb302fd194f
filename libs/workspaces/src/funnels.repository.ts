import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { sqlPool } from '@app/core';
import type { CollectionSettings } from './collection-settings';
import { Funnel, FunnelStatus } from './entities/funnel.entity';
import { FunnelPage } from './entities/funnel-page.entity';
import { Workspace } from './entities/workspace.entity';

/** A funnel row as the tenant check reads it. */
export interface FunnelRow {
  id: string;
  company_id: string;
  workspace_id: string;
  name: string;
  status: FunnelStatus;
  contact_statuses: string[];
  collection_enabled: boolean;
  collection_origins: string[];
}

export interface NewFunnel {
  workspaceId: string;
  name: string;
  status: FunnelStatus;
  contactStatuses: string[];
  pages: { slug: string; title: string }[];
}

/** The SQL of the funnels and funnel_pages tables. */
@Injectable()
export class FunnelsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Stores a funnel with its pages (in the given order) in the workspace's company, in one
   * transaction; undefined when the workspace does not exist.
   */
  insertWithPages(input: NewFunnel): Promise<Funnel | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const workspace = await manager.findOneBy(Workspace, { id: input.workspaceId });
      if (!workspace) return undefined;
      const funnel = await manager.save(
        manager.create(Funnel, {
          workspaceId: workspace.id,
          companyId: workspace.companyId,
          name: input.name,
          status: input.status,
          contactStatuses: input.contactStatuses,
        }),
      );
      funnel.pages = await manager.save(
        input.pages.map((p, position) =>
          manager.create(FunnelPage, { funnelId: funnel.id, position, slug: p.slug, title: p.title }),
        ),
      );
      return funnel;
    });
  }

  /** The columns the tenant check caches, read without the ORM on the hot path. */
  async row(funnelId: string): Promise<FunnelRow | undefined> {
    const { rows } = await sqlPool(this.dataSource).query<FunnelRow>({
      name: 'funnel_by_id',
      text: `SELECT id, company_id, workspace_id, name, status, contact_statuses, collection_enabled,
                    collection_origins FROM funnels WHERE id = $1`,
      values: [funnelId],
    });
    return rows[0];
  }

  /** Stores the funnel's browser collection settings (the funnels trigger drops every cached copy). */
  async setCollection(funnelId: string, settings: CollectionSettings): Promise<void> {
    await this.dataSource.query(
      'UPDATE funnels SET collection_enabled = $2, collection_origins = $3::text[] WHERE id = $1',
      [funnelId, settings.enabled, settings.allowedOrigins],
    );
  }

  findById(funnelId: string): Promise<Funnel | null> {
    return this.dataSource.getRepository(Funnel).findOneBy({ id: funnelId });
  }

  /** The workspace's funnels, oldest first. */
  listForWorkspace(workspaceId: string): Promise<Funnel[]> {
    return this.dataSource.getRepository(Funnel).find({
      where: { workspaceId },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** The funnel's pages in funnel order. */
  pagesOf(funnelId: string): Promise<FunnelPage[]> {
    return this.dataSource
      .getRepository(FunnelPage)
      .find({ where: { funnelId }, order: { position: 'ASC' } });
  }
}
