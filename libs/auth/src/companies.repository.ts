import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Company } from './entities/company.entity';

/** The SQL of the companies table. */
@Injectable()
export class CompaniesRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get companies() {
    return this.dataSource.getRepository(Company);
  }

  insert(name: string, subscriptionId: string): Promise<Company> {
    return this.companies.save(this.companies.create({ name, subscriptionId }));
  }

  /** Every company, oldest first. */
  list(): Promise<Company[]> {
    return this.companies.find({ order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** The oldest company with this subscription id, if any. */
  findBySubscription(subscriptionId: string): Promise<Company | null> {
    return this.companies.findOne({ where: { subscriptionId }, order: { createdAt: 'ASC' } });
  }

  exists(companyId: string): Promise<boolean> {
    return this.companies.existsBy({ id: companyId });
  }
}
