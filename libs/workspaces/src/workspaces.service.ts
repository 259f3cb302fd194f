import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ValidationError } from '@app/core';
import { CompaniesService } from '@app/auth/companies.service';
import { Workspace } from './entities/workspace.entity';
import type { WorkspaceView } from './dto/workspace.dto';

@Injectable()
export class WorkspacesService {
  constructor(
    @InjectRepository(Workspace) private readonly workspaces: Repository<Workspace>,
    private readonly companies: CompaniesService,
  ) {}

  async create(companyId: string, name: string): Promise<Workspace> {
    if (!name?.trim()) throw new ValidationError('name is required');
    await this.companies.assertExists(companyId);
    return this.workspaces.save(this.workspaces.create({ companyId, name: name.trim() }));
  }

  /** Every workspace of the company with its funnels ("campaigns"), oldest first. */
  async listForCompany(companyId: string): Promise<WorkspaceView[]> {
    const rows = await this.workspaces
      .createQueryBuilder('w')
      .leftJoinAndSelect('w.funnels', 'f')
      .where('w.companyId = :companyId', { companyId })
      .orderBy('w.createdAt', 'ASC')
      .addOrderBy('w.id', 'ASC')
      .addOrderBy('f.createdAt', 'ASC')
      .addOrderBy('f.id', 'ASC')
      .getMany();
    return rows.map((w) => ({
      id: w.id,
      name: w.name,
      campaigns: (w.funnels ?? []).map((f) => ({ id: f.id, name: f.name, status: f.status })),
    }));
  }
}
