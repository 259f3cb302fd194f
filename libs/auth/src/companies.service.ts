import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { isUuid, NotFoundError, ValidationError } from '@app/core';
import { Company } from './entities/company.entity';

@Injectable()
export class CompaniesService {
  constructor(@InjectRepository(Company) private readonly companies: Repository<Company>) {}

  async create(name: string, subscriptionId?: string): Promise<Company> {
    if (!name?.trim()) throw new ValidationError('name is required');
    return this.companies.save(
      this.companies.create({ name: name.trim(), subscriptionId: subscriptionId ?? `sub_${randomUUID()}` }),
    );
  }

  /** Every company, oldest first: what an operator who lost an id looks through. */
  async list(): Promise<{ id: string; name: string; subscriptionId: string; createdAt: string }[]> {
    const companies = await this.companies.find({ order: { createdAt: 'ASC', id: 'ASC' } });
    return companies.map((c) => ({
      id: c.id,
      name: c.name,
      subscriptionId: c.subscriptionId,
      createdAt: c.createdAt.toISOString(),
    }));
  }

  /** The oldest company with this subscription id, if any. */
  findBySubscription(subscriptionId: string): Promise<Company | null> {
    return this.companies.findOne({ where: { subscriptionId }, order: { createdAt: 'ASC' } });
  }

  async exists(companyId: string): Promise<boolean> {
    return isUuid(companyId) && (await this.companies.existsBy({ id: companyId }));
  }

  /** Throws 404 unless the company exists. */
  async assertExists(companyId: string): Promise<void> {
    if (!isUuid(companyId) || !(await this.companies.existsBy({ id: companyId }))) {
      throw new NotFoundError('Company not found');
    }
  }
}
