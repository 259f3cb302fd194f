import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfigService } from '@app/core';

interface Company {
  running: number;
  waiting: (() => void)[];
}

/**
 * Ingestion transactions one company may have in flight in this process, across all its funnels
 * (EVENT_WRITERS_PER_COMPANY). A company sending large batches to many funnels at once waits for
 * its own writers, holding no connection while it waits, instead of taking the pool that other
 * companies' requests need. Places are handed on in arrival order.
 */
@Injectable()
export class CompanyWriters {
  private readonly companies = new Map<string, Company>();
  private readonly limit: number;

  constructor(@Inject(ConfigService) config: AppConfigService) {
    this.limit = config.get('EVENT_WRITERS_PER_COMPANY', { infer: true });
  }

  /** Waits for a place of the company; the function returned gives it back (once). */
  async acquire(companyId: string): Promise<() => void> {
    let company = this.companies.get(companyId);
    if (!company) this.companies.set(companyId, (company = { running: 0, waiting: [] }));
    const entry = company;
    if (entry.running < this.limit) entry.running++;
    else await new Promise<void>((resolve) => entry.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = entry.waiting.shift();
      if (next) next();
      else if (--entry.running === 0) this.companies.delete(companyId);
    };
  }

  /** Transactions in flight and batches waiting for a place, of one company (for tests and metrics). */
  usage(companyId: string): { running: number; waiting: number } {
    const company = this.companies.get(companyId);
    return { running: company?.running ?? 0, waiting: company?.waiting.length ?? 0 };
  }
}
