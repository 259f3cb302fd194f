import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource } from 'typeorm';
import { ApiKeysService, CompaniesService, PERMISSIONS } from '@app/auth';
import { Contact } from '@app/contacts';
import { AppConfigService } from '@app/core';
import { EventsService, parseEventBatch } from '@app/metrics';
import { FunnelsService, WorkspacesService } from '@app/workspaces';
import { CITIES, createRandom, FIRST_NAMES, LAST_NAMES, pick, UTM_SOURCES } from './demo-data';
import { DemoSeedRepository } from './demo-seed.repository';
import { demoTraffic, RawEvent } from './demo-traffic';

export interface DemoSeedResult {
  companyId: string;
  apiKey: string;
  workspaceId: string;
  funnelIds: string[];
  /** False when the demo company existed already: only the key is new. */
  created: boolean;
}

/** Marks the demo company, so that seeding again finds it instead of making another. */
export const DEMO_SUBSCRIPTION = 'sub_demo';
/** Marks a demo company still being seeded; one left by a failed seed is removed by the next. */
export const DEMO_SUBSCRIPTION_UNFINISHED = 'sub_demo_unfinished';

const DAY = 24 * 60 * 60 * 1000;

const DEMO_FUNNELS = [
  {
    name: 'Free consultation funnel',
    status: 'online',
    contactStatuses: ['lead', 'qualified', 'converted', 'lost'],
    pages: [
      { slug: 'start', title: 'Welcome' },
      { slug: 'goals', title: 'Your goals' },
      { slug: 'budget', title: 'Budget' },
      { slug: 'contact', title: 'Contact details' },
      { slug: 'thank-you', title: 'Thank you' },
    ],
    contacts: 180,
    sessions: 1500,
  },
  {
    name: 'Job application funnel',
    status: 'offline',
    contactStatuses: ['applied', 'interview', 'hired', 'rejected'],
    pages: [
      { slug: 'job', title: 'The job' },
      { slug: 'experience', title: 'Experience' },
      { slug: 'apply', title: 'Apply' },
    ],
    contacts: 40,
    sessions: 400,
  },
] as const;

/**
 * A demo company with an all-permission key, two funnels, 30 days of contacts and of tracked traffic.
 * All or nothing: the company becomes the demo company only once everything is in, and a seed
 * that failed part-way is cleared by the next one (ingestion keeps its own transactions, so the
 * seed cannot be one).
 */
@Injectable()
export class DemoSeedService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly companies: CompaniesService,
    private readonly apiKeys: ApiKeysService,
    private readonly workspaces: WorkspacesService,
    private readonly funnels: FunnelsService,
    private readonly events: EventsService,
    @Inject(ConfigService) private readonly config: AppConfigService,
    private readonly demo: DemoSeedRepository,
  ) {}

  async seed(now = new Date(), seed = 42): Promise<DemoSeedResult> {
    const existing = await this.companies.findBySubscription(DEMO_SUBSCRIPTION);
    if (existing) return this.reuse(existing.id);
    await this.demo.removeUnfinished(DEMO_SUBSCRIPTION_UNFINISHED);
    const random = createRandom(seed);
    const company = await this.companies.create('Demo Company', DEMO_SUBSCRIPTION_UNFINISHED);
    const workspace = await this.workspaces.create(company.id, 'Marketing');
    const { key } = await this.apiKeys.create(company.id, [...PERMISSIONS], 'demo');
    const funnelIds: string[] = [];
    for (const spec of DEMO_FUNNELS) {
      const funnel = await this.funnels.create({
        workspaceId: workspace.id,
        name: spec.name,
        status: spec.status,
        contactStatuses: [...spec.contactStatuses],
        pages: [...spec.pages],
      });
      funnelIds.push(funnel.id);
      if (funnelIds.length === 1) await this.allowDemoPages(funnel.id);
      await this.seedContacts(company.id, funnel.id, spec, now, random);
      await this.seedTraffic(funnel.id, spec, now, random);
    }
    await this.demo.markComplete(company.id, DEMO_SUBSCRIPTION);
    return { companyId: company.id, apiKey: key, workspaceId: workspace.id, funnelIds, created: true };
  }

  /** Development: the first funnel takes visits and leads from the demo funnel `npm start` serves. */
  private async allowDemoPages(funnelId: string): Promise<void> {
    if (this.config.get('NODE_ENV', { infer: true }) === 'production') return;
    const port = this.config.get('DEMO_FUNNEL_PORT', { infer: true });
    await this.funnels.changeCollection(null, funnelId, {
      enabled: true,
      allowedOrigins: [`http://127.0.0.1:${port}`, `http://localhost:${port}`],
    });
  }

  /** The demo company made before, with a fresh key (the first one was shown once only). */
  private async reuse(companyId: string): Promise<DemoSeedResult> {
    const [workspace] = await this.workspaces.listForCompany(companyId);
    const { key } = await this.apiKeys.create(companyId, [...PERMISSIONS], 'demo');
    return {
      companyId,
      apiKey: key,
      workspaceId: workspace?.id ?? '',
      funnelIds: workspace?.campaigns.map((funnel) => funnel.id) ?? [],
      created: false,
    };
  }

  private async seedContacts(
    companyId: string,
    funnelId: string,
    spec: (typeof DEMO_FUNNELS)[number],
    now: Date,
    random: () => number,
  ): Promise<void> {
    const contacts = Array.from({ length: spec.contacts }, (_, i) => {
      const firstName = pick(random, FIRST_NAMES);
      const lastName = pick(random, LAST_NAMES);
      const place = pick(random, CITIES);
      const convertedAt = new Date(now.getTime() - random() * 30 * DAY);
      const firstSeen = new Date(convertedAt.getTime() - random() * 20 * 60 * 1000);
      const hasUtm = random() < 0.7;
      return this.dataSource.manager.create(Contact, {
        funnelId,
        companyId,
        status: pick(random, spec.contactStatuses),
        email: `${firstName}.${lastName}.${i}@example.com`.toLowerCase().replace('ü', 'ue'),
        phone: random() < 0.6 ? `+49151${String(1000000 + Math.floor(random() * 8999999))}` : null,
        firstName,
        lastName,
        city: place.city,
        postalCode: place.postalCode,
        country: place.country,
        convertedAt,
        meta: {
          ps_source: 'funnel',
          ps_timezone: 'Europe/Berlin',
          ps_first_seen_at: firstSeen.toISOString(),
          ps_last_seen_at: convertedAt.toISOString(),
          ps_start_slug: spec.pages[0].slug,
          ps_end_slug: spec.pages[spec.pages.length - 1].slug,
        },
        utmParams: hasUtm
          ? { utm_source: pick(random, UTM_SOURCES), utm_medium: 'cpc', utm_campaign: 'autumn' }
          : {},
        properties: random() < 0.5 ? { newsletter: random() < 0.5, score: Math.floor(random() * 100) } : {},
      });
    });
    await this.dataSource.manager.save(Contact, contacts, { chunk: 100 });
  }

  /** 30 days of sessions through the same ingestion as POST /events, so the demo charts have data. */
  private async seedTraffic(
    funnelId: string,
    spec: (typeof DEMO_FUNNELS)[number],
    now: Date,
    random: () => number,
  ): Promise<void> {
    const to = now.getTime();
    const raw: RawEvent[] = [];
    const traffic = demoTraffic({
      pages: spec.pages,
      from: to - 30 * DAY,
      to,
      sessions: spec.sessions,
      random,
      prefix: `demo-${funnelId.slice(0, 8)}-`,
    });
    for (const session of traffic) raw.push(...session);
    for (let i = 0; i < raw.length; i += 1000) {
      await this.events.record(funnelId, parseEventBatch({ events: raw.slice(i, i + 1000) }, to));
    }
  }
}
