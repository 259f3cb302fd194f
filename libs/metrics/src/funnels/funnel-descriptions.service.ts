import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFoundError } from '@app/core';
import { CachedFunnel, FunnelsService } from '@app/workspaces';
import { MetricQuestion } from '../entities/metric-question.entity';
import { assertFunnelId } from '../query/funnel-id';
import type { FunnelDescription } from './funnel-description.dto';

const questionNumber = (questionId: string) => Number(questionId.slice(questionId.indexOf('_') + 1));

/**
 * A funnel with its contact statuses, pages and question ids: what REST, MCP and the admin CLI
 * show of one funnel. It lives beside the metrics because the questions are known only from the
 * tracked answer events, and metrics already reads the funnels (never the other way round).
 */
@Injectable()
export class FunnelDescriptionsService {
  constructor(
    private readonly funnels: FunnelsService,
    @InjectRepository(MetricQuestion) private readonly questions: Repository<MetricQuestion>,
  ) {}

  /** A funnel of the company; another company's funnel is 404, as on every route. */
  async describeForCompany(companyId: string, funnelId: string): Promise<FunnelDescription> {
    assertFunnelId(funnelId);
    return this.describeFunnel(await this.funnels.findForCompany(companyId, funnelId));
  }

  /** Any funnel, for operators (the admin CLI). */
  async describe(funnelId: string): Promise<FunnelDescription> {
    assertFunnelId(funnelId);
    const funnel = await this.funnels.findCached(funnelId);
    if (!funnel) throw new NotFoundError('Funnel not found');
    return this.describeFunnel(funnel);
  }

  private async describeFunnel(funnel: CachedFunnel): Promise<FunnelDescription> {
    const [pages, questions] = await Promise.all([
      this.funnels.pagesOf(funnel.id),
      this.questions.findBy({ funnelId: funnel.id }),
    ]);
    return {
      id: funnel.id,
      workspaceId: funnel.workspaceId,
      name: funnel.name,
      status: funnel.status,
      contactStatuses: [...funnel.contactStatuses],
      collection: {
        enabled: funnel.collection.enabled,
        allowedOrigins: [...funnel.collection.allowedOrigins],
      },
      pages: pages.map(({ slug, title }) => ({ slug, title })),
      questions: questions
        .sort((a, b) => questionNumber(a.questionId) - questionNumber(b.questionId))
        .map(({ questionId, title }) => ({ questionId, title })),
    };
  }
}
