import { Injectable } from '@nestjs/common';
import { CompaniesService } from '@app/auth';
import { ChangeNotifications, NotifiedCache, ValidationError } from '@app/core';
import { Workspace } from './entities/workspace.entity';
import type { WorkspaceView } from './dto/workspace.dto';
import { WorkspacesRepository } from './workspaces.repository';

/**
 * The triggers on workspaces and funnels notify this channel with the company's id (see the
 * WorkspaceListNotifications migration).
 */
export const WORKSPACES_CHANNEL = 'workspaces_changed';
// Notifications make changes visible at once; the age limit only bounds a missed one.
export const WORKSPACE_LIST_CACHE_TTL_MS = 60_000;

/** A company's workspace list, and its JSON text as the API sends it; shared, so never changed. */
interface WorkspaceList {
  readonly views: readonly WorkspaceView[];
  readonly json: string;
}

@Injectable()
export class WorkspacesService {
  // Read on every GET /v1/workspaces and changed by an operator now and then: from memory,
  // dropped on every replica when a workspace or funnel of the company changes (see NotifiedCache).
  private readonly lists: NotifiedCache<WorkspaceList>;

  constructor(
    private readonly workspaces: WorkspacesRepository,
    private readonly companies: CompaniesService,
    notifications: ChangeNotifications,
  ) {
    this.lists = new NotifiedCache(notifications, {
      channel: WORKSPACES_CHANNEL,
      ttlMs: WORKSPACE_LIST_CACHE_TTL_MS,
      maxEntries: 10_000,
    });
  }

  async create(companyId: string, name: string): Promise<Workspace> {
    if (!name?.trim()) throw new ValidationError('name is required');
    await this.companies.assertExists(companyId);
    const workspace = await this.workspaces.insert(companyId, name.trim());
    this.changed(companyId);
    return workspace;
  }

  /**
   * Drops the company's list in this process, which shows its own writes at once; the others drop
   * it when the trigger's notification reaches them.
   */
  changed(companyId: string): void {
    this.lists.changed(companyId);
  }

  /** Every workspace of the company with its funnels ("campaigns"), oldest first. */
  async listForCompany(companyId: string): Promise<WorkspaceView[]> {
    return structuredClone((await this.list(companyId)).views) as WorkspaceView[];
  }

  /** The answer of GET /v1/workspaces as JSON text: `{"data":[…]}`. */
  async listJson(companyId: string): Promise<string> {
    return (await this.list(companyId)).json;
  }

  private async list(companyId: string): Promise<WorkspaceList> {
    const list = await this.lists.get(companyId, async () => {
      const views = await this.workspaces.listForCompany(companyId);
      return { views, json: JSON.stringify({ data: views }) };
    });
    // The load never answers undefined: a company without workspaces has an empty list.
    return list!;
  }
}
