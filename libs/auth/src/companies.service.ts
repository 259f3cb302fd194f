import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { isUuid, NotFoundError, ValidationError } from '@app/core';
import { CompaniesRepository } from './companies.repository';
import { Company } from './entities/company.entity';

@Injectable()
export class CompaniesService {
  constructor(private readonly companies: CompaniesRepository) {}

  async create(name: string, subscriptionId?: string): Promise<Company> {
    if (!name?.trim()) throw new ValidationError('name is required');
    return this.companies.insert(name.trim(), subscriptionId ?? `sub_${randomUUID()}`);
  }

  /** Every company, oldest first: what an operator who lost an id looks through. */
  async list(): Promise<{ id: string; name: string; subscriptionId: string; createdAt: string }[]> {
    const companies = await this.companies.list();
    return companies.map((c) => ({
      id: c.id,
      name: c.name,
      subscriptionId: c.subscriptionId,
      createdAt: c.createdAt.toISOString(),
    }));
  }

  /** The oldest company with this subscription id, if any. */
  findBySubscription(subscriptionId: string): Promise<Company | null> {
    return this.companies.findBySubscription(subscriptionId);
  }

  async exists(companyId: string): Promise<boolean> {
    return isUuid(companyId) && (await this.companies.exists(companyId));
  }

  /** Throws 404 unless the company exists. */
  async assertExists(companyId: string): Promise<void> {
    if (!(await this.exists(companyId))) throw new NotFoundError('Company not found');
  }
}
