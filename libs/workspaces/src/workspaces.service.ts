import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { sqlPool, ValidationError } from '@app/core';
import { CompaniesService } from '@app/auth';
import { Workspace } from './entities/workspace.entity';
import type { WorkspaceView } from './dto/workspace.dto';

@Injectable()
export class WorkspacesService {
  constructor(
    @InjectRepository(Workspace) private readonly workspaces: Repository<Workspace>,
    private readonly companies: CompaniesService,
    private readonly dataSource: DataSource,
  ) {}

  async create(companyId: string, name: string): Promise<Workspace> {
    if (!name?.trim()) throw new ValidationError('name is required');
    await this.companies.assertExists(companyId);
    return this.workspaces.save(this.workspaces.create({ companyId, name: name.trim() }));
  }

  /**
   * Every workspace of the company with its funnels ("campaigns"), oldest first: one statement
   * that returns the rows in the shape the API sends.
   */
  async listForCompany(companyId: string): Promise<WorkspaceView[]> {
    const { rows } = await sqlPool(this.dataSource).query<WorkspaceView>({
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
