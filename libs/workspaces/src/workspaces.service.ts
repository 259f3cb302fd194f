import { Injectable } from '@nestjs/common';
import { CompaniesService } from '@app/auth';
import { ValidationError } from '@app/core';
import { Workspace } from './entities/workspace.entity';
import type { WorkspaceView } from './dto/workspace.dto';
import { WorkspacesRepository } from './workspaces.repository';

@Injectable()
export class WorkspacesService {
  constructor(
    private readonly workspaces: WorkspacesRepository,
    private readonly companies: CompaniesService,
  ) {}

  async create(companyId: string, name: string): Promise<Workspace> {
    if (!name?.trim()) throw new ValidationError('name is required');
    await this.companies.assertExists(companyId);
    return this.workspaces.insert(companyId, name.trim());
  }

  /** Every workspace of the company with its funnels ("campaigns"), oldest first. */
  listForCompany(companyId: string): Promise<WorkspaceView[]> {
    return this.workspaces.listForCompany(companyId);
  }
}
