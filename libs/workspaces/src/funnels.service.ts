import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import {
  AppConfigService,
  ChangeNotifications,
  isUuid,
  NotifiedCache,
  NotFoundError,
  ValidationError,
} from '@app/core';
import {
  CONTACT_STATUS_NAME,
  DEFAULT_CONTACT_STATUSES,
  DEFAULT_FUNNEL_STATUS,
  Funnel,
  FUNNEL_STATUSES,
  FunnelStatus,
} from './entities/funnel.entity';
import { FunnelPage } from './entities/funnel-page.entity';
import { changeCollectionSettings, CollectionSettings } from './collection-settings';
import { FunnelRow, FunnelsRepository } from './funnels.repository';
import { WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

export interface CreateFunnelInput {
  workspaceId: string;
  name: string;
  status?: string;
  contactStatuses?: string[];
  pages?: { slug: string; title: string }[];
}

export interface FunnelSummary {
  id: string;
  name: string;
  status: FunnelStatus;
  contactStatuses: string[];
  createdAt: string;
}

const SLUG = /^[a-z0-9][a-z0-9-_]{0,199}$/i;

/** The trigger on funnels notifies this channel with the funnel's id (see the ApiKeyExpiry migration). */
export const FUNNELS_CHANNEL = 'funnels_changed';
// Notifications make changes visible at once; the age limit only bounds a missed one.
export const FUNNEL_CACHE_TTL_MS = 60_000;

/** What the tenant check and the contact rules read of a funnel; shared, so never changed. */
export type CachedFunnel = Readonly<Pick<Funnel, 'id' | 'companyId' | 'workspaceId' | 'name' | 'status'>> & {
  readonly contactStatuses: readonly string[];
  readonly collection: Readonly<CollectionSettings>;
};

@Injectable()
export class FunnelsService {
  // Every funnel route checks its funnel first: from memory, dropped on every replica when the
  // funnel changes or is deleted (see NotifiedCache).
  private readonly cache: NotifiedCache<CachedFunnel>;
  // A funnel's pages are written with the funnel and never after: kept as the funnel is.
  private readonly pages: NotifiedCache<FunnelPage[]>;

  constructor(
    private readonly funnels: FunnelsRepository,
    private readonly workspaces: WorkspacesRepository,
    private readonly workspaceLists: WorkspacesService,
    notifications: ChangeNotifications,
    @Inject(ConfigService) private readonly config: AppConfigService,
  ) {
    const kept = { channel: FUNNELS_CHANNEL, ttlMs: FUNNEL_CACHE_TTL_MS, maxEntries: 10_000 };
    this.cache = new NotifiedCache(notifications, kept);
    this.pages = new NotifiedCache(notifications, kept);
  }

  async create(input: CreateFunnelInput): Promise<Funnel> {
    const problems: string[] = [];
    if (!input.name?.trim()) problems.push('name is required');
    const status = (input.status ?? DEFAULT_FUNNEL_STATUS) as FunnelStatus;
    if (!FUNNEL_STATUSES.includes(status)) problems.push(`status must be ${FUNNEL_STATUSES.join(' or ')}`);
    const statuses = input.contactStatuses ?? [...DEFAULT_CONTACT_STATUSES];
    if (!statuses.length || statuses.some((s) => !CONTACT_STATUS_NAME.test(s))) {
      problems.push('statuses must be a non-empty list of names (letters, digits, _ and -)');
    }
    if (new Set(statuses).size !== statuses.length) problems.push('statuses must not repeat');
    const pages = input.pages ?? [];
    if (pages.some((p) => !SLUG.test(p.slug) || !p.title?.trim())) {
      problems.push('pages must be slug:Title pairs (slug of letters, digits, - and _)');
    }
    if (new Set(pages.map((p) => p.slug)).size !== pages.length) problems.push('page slugs must not repeat');
    if (problems.length) throw new ValidationError(problems[0], problems);

    const funnel = isUuid(input.workspaceId)
      ? await this.funnels.insertWithPages({
          workspaceId: input.workspaceId,
          name: input.name.trim(),
          status,
          contactStatuses: statuses,
          pages: pages.map((p) => ({ slug: p.slug, title: p.title.trim() })),
        })
      : undefined;
    if (!funnel) throw new NotFoundError('Workspace not found');
    // This process shows it at once; the others when the trigger's notification reaches them.
    this.workspaceLists.changed(funnel.companyId);
    return funnel;
  }

  /**
   * The funnel when it exists and belongs to the company; otherwise 404, so another company's
   * funnel is indistinguishable from a missing one.
   */
  async findForCompany(companyId: string, funnelId: string): Promise<CachedFunnel> {
    const funnel = isUuid(funnelId) ? await this.cache.get(funnelId, () => this.load(funnelId)) : undefined;
    if (!funnel || funnel.companyId !== companyId) throw new NotFoundError('Funnel not found');
    return funnel;
  }

  /**
   * Any funnel by id, as the tenant check caches it (the public collection routes, which know no
   * company until they read the funnel); undefined when there is none.
   */
  async findCached(funnelId: string): Promise<CachedFunnel | undefined> {
    return isUuid(funnelId) ? this.cache.get(funnelId, () => this.load(funnelId)) : undefined;
  }

  /**
   * Changes the funnel's browser collection settings (`companyId` null: an operator); answers the
   * settings as stored. Loopback origins are refused in production.
   */
  async changeCollection(
    companyId: string | null,
    funnelId: string,
    input: unknown,
  ): Promise<CollectionSettings> {
    const funnel =
      companyId === null ? await this.findById(funnelId) : await this.findForCompany(companyId, funnelId);
    const current = (await this.funnels.row(funnel.id)) as FunnelRow;
    const next = changeCollectionSettings(
      { enabled: current.collection_enabled, allowedOrigins: current.collection_origins },
      input,
      this.config.get('NODE_ENV', { infer: true }) === 'production',
    );
    await this.funnels.setCollection(funnel.id, next);
    this.cache.changed(funnel.id);
    return next;
  }

  /** Any funnel, for operators; 404 when there is none. */
  async findById(funnelId: string): Promise<Funnel> {
    const funnel = isUuid(funnelId) ? await this.funnels.findById(funnelId) : null;
    if (!funnel) throw new NotFoundError('Funnel not found');
    return funnel;
  }

  /** The workspace's funnels, oldest first; 404 for an unknown workspace. */
  async listForWorkspace(workspaceId: string): Promise<FunnelSummary[]> {
    const workspace = isUuid(workspaceId) ? await this.workspaces.exists(workspaceId) : false;
    if (!workspace) throw new NotFoundError('Workspace not found');
    const funnels = await this.funnels.listForWorkspace(workspaceId);
    return funnels.map((f) => ({
      id: f.id,
      name: f.name,
      status: f.status,
      contactStatuses: f.contactStatuses,
      createdAt: f.createdAt.toISOString(),
    }));
  }

  /** The funnel's pages in funnel order (from memory, as the funnel is). */
  async pagesOf(funnelId: string): Promise<FunnelPage[]> {
    return (await this.pages.get(funnelId, () => this.funnels.pagesOf(funnelId))) ?? [];
  }

  private async load(funnelId: string): Promise<CachedFunnel | undefined> {
    const row = await this.funnels.row(funnelId);
    if (!row) return undefined;
    return Object.freeze({
      id: row.id,
      companyId: row.company_id,
      workspaceId: row.workspace_id,
      name: row.name,
      status: row.status,
      contactStatuses: Object.freeze(row.contact_statuses),
      collection: Object.freeze({
        enabled: row.collection_enabled,
        allowedOrigins: Object.freeze(row.collection_origins) as string[],
      }),
    });
  }
}
