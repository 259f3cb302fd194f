import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ReadPool } from '@app/core';
import type { WorkspaceView } from './dto/workspace.dto';
import { Workspace } from './entities/workspace.entity';

/** The SQL of the workspaces table. */
@Injectable()
export class WorkspacesRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly reads: ReadPool,
  ) {}

  insert(companyId: string, name: string): Promise<Workspace> {
    const workspaces = this.dataSource.getRepository(Workspace);
    return workspaces.save(workspaces.create({ companyId, name }));
  }

  exists(workspaceId: string): Promise<boolean> {
    return this.dataSource.getRepository(Workspace).existsBy({ id: workspaceId });
  }

  /**
   * Every workspace of the company with its funnels ("campaigns"), oldest first: one statement
   * that returns the rows in the shape the API sends.
   */
  async listForCompany(companyId: string): Promise<WorkspaceView[]> {
    const { rows } = await this.reads.query<WorkspaceView>({
      name: 'workspaces_of_company',
      text: `SELECT w.id, w.name,
                    coalesce(json_agg(json_build_object('id', f.id, 'name', f.name, 'status', f.status)
                                      ORDER BY f.created_at, f.id) FILTER (WHERE f.id IS NOT NULL), '[]') AS campaigns
             FROM workspaces w LEFT JOIN funnels f ON f.workspace_id = w.id
             WHERE w.company_id = $1
             GROUP BY w.id ORDER BY w.created_at, w.id`,
      values: [companyId],
    });
    return rows;
  }
}
