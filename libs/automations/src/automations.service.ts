import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { EntityManager } from 'typeorm';
import {
  AutomationTrigger,
  ContactChange,
  findContactsById,
  findMessagesOf,
  NewContactsRecorder,
} from '@app/contacts';
import { type AppConfigService, isUuid, NotFoundError, ValidationError } from '@app/core';
import { FunnelsService } from '@app/workspaces';
import { DEFAULT_RUNS_LIMIT, MAX_RUNS_LIMIT, RUNS_LIMIT_RULE } from './automation-limits';
import { matchingAutomations, runsFor } from './automation-runs';
import { CreateAutomationInput, validateAutomationInput } from './create-automation.input';
import { AutomationsRepository, EnabledAutomation } from './automations.repository';
import { Automation } from './entities/automation.entity';
import { RUN_STATUSES, RunStatus } from './entities/automation-run.entity';
import { WebhookSecretCipher } from './webhook-secret.cipher';
import { emailUnavailableReason } from './mail/mail-sender';

/** What `automation runs` shows: delivery state, never the payload or the automation's secret. */
export interface AutomationRunSummary {
  id: string;
  automationId: string;
  automationName: string;
  trigger: string;
  action: string;
  contactId: string;
  event: string;
  status: RunStatus;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  completedAt: string | null;
}

/** What `automation list` shows of an automation. */
export interface AutomationSummary {
  id: string;
  name: string;
  trigger: string;
  enabled: boolean;
  action: string;
  webhookUrl: string | null;
  signed: boolean;
  messageChannel: string | null;
  /** Email: opens and clicks tracked. */
  tracking: boolean;
  createdAt: string;
  updatedAt: string;
}

function summarise(automation: Automation): AutomationSummary {
  return {
    id: automation.id,
    name: automation.name,
    trigger: automation.trigger,
    enabled: automation.enabled,
    action: automation.action,
    webhookUrl: automation.webhookUrl,
    signed: automation.webhookSecretEncrypted !== null,
    messageChannel: automation.messageChannel,
    tracking: automation.trackEngagement,
    createdAt: automation.createdAt.toISOString(),
    updatedAt: automation.updatedAt.toISOString(),
  };
}

export interface ListRunsOptions {
  status?: string;
  limit?: number;
}

/** Creates automations and writes their runs into the outbox inside the caller's transaction. */
@Injectable()
export class AutomationsService extends AutomationTrigger {
  constructor(
    private readonly automations: AutomationsRepository,
    private readonly funnels: FunnelsService,
    private readonly cipher: WebhookSecretCipher,
    @Inject(ConfigService) private readonly env: AppConfigService,
  ) {
    super();
  }

  /**
   * Creates an automation after the checks every door shares; `companyId` (the REST API) limits it
   * to the company's funnels, the admin CLI (an operator) may use any funnel.
   */
  async create(input: CreateAutomationInput, companyId?: string): Promise<{ id: string }> {
    const valid = validateAutomationInput(input);
    const noEmail = emailUnavailableReason(this.env);
    if (valid.action.action === 'message' && valid.action.channel === 'email' && noEmail) {
      throw new ValidationError(`--message email is refused: ${noEmail}`);
    }
    const funnel = companyId
      ? await this.funnels.findForCompany(companyId, input.funnelId)
      : await this.funnels.findById(input.funnelId);
    if (valid.spec.kind === 'status' && !funnel.contactStatuses.includes(valid.spec.status)) {
      throw new ValidationError(
        `--on status:${valid.spec.status} is not a status of this funnel (${funnel.contactStatuses.join(', ')})`,
      );
    }
    const { action } = valid;
    if (action.action === 'webhook' && action.secret && !this.cipher.hasKey) {
      throw new ValidationError(
        '--secret needs AUTOMATION_SECRET_KEY to be set (it encrypts webhook secrets)',
      );
    }
    const id = randomUUID();
    await this.automations.insert({
      id,
      funnelId: funnel.id,
      companyId: funnel.companyId,
      name: valid.name,
      trigger: valid.trigger,
      action: action.action,
      webhookUrl: action.action === 'webhook' ? action.url : null,
      webhookSecretEncrypted:
        action.action === 'webhook' && action.secret ? this.cipher.encrypt(action.secret, id) : null,
      messageChannel: action.action === 'message' ? action.channel : null,
      messageSubject: action.action === 'message' ? action.subject : null,
      messageTemplate: action.action === 'message' ? action.template : null,
      trackEngagement: action.action === 'message' ? action.tracking : true,
    });
    return { id };
  }

  /** The funnel's runs, newest first. */
  async listRuns(funnelId: string, options: ListRunsOptions = {}): Promise<AutomationRunSummary[]> {
    const limit = options.limit ?? DEFAULT_RUNS_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RUNS_LIMIT)
      throw new ValidationError(RUNS_LIMIT_RULE);
    if (options.status !== undefined && !RUN_STATUSES.includes(options.status as RunStatus)) {
      throw new ValidationError(`--status must be one of ${RUN_STATUSES.join(', ')}`);
    }
    const funnel = await this.funnels.findById(funnelId);
    const runs = await this.automations.listRuns(funnel.id, {
      status: options.status as RunStatus | undefined,
      limit,
    });
    return runs.map((run) => ({
      id: run.id,
      automationId: run.automationId,
      automationName: run.automation!.name,
      trigger: run.automation!.trigger,
      action: run.automation!.action,
      contactId: run.contactId,
      event: run.event,
      status: run.status,
      attempts: run.attempts,
      lastError: run.lastError,
      nextAttemptAt: run.status === 'pending' ? run.nextAttemptAt.toISOString() : null,
      createdAt: run.createdAt.toISOString(),
      completedAt: run.completedAt?.toISOString() ?? null,
    }));
  }

  /**
   * Inserts one run per (change, matching enabled automation) with the payload frozen now, through
   * the caller's manager so the runs commit or roll back with the change. Set-based: one query for
   * the funnels' automations (all a funnel without automations costs), one for the contacts, and
   * only when something matched one for their messages and one multi-row insert.
   */
  async record(manager: EntityManager, changes: ContactChange[]): Promise<void> {
    if (!changes.length) return;
    const funnelIds = unique(changes.map((c) => c.funnelId));
    const automations = await this.automations.enabledForFunnels(manager, funnelIds);
    if (!automations.length) return;
    // An erased contact is gone: its change carries ids only.
    const contactIds = unique(changes.filter((c) => c.kind !== 'contact.deleted').map((c) => c.contactId));
    const contacts = await findContactsById(manager, funnelIds, contactIds);
    const matches = matchingAutomations(changes, automations, contacts);
    if (!matches.length) return;

    // The Contact JSON includes its messages, so the payload shows what the API would show now.
    const messages = await findMessagesOf(manager, funnelIds, contactIds);
    await this.automations.insertRuns(manager, runsFor(matches, messages));
  }

  // A new contact has no message yet: its payload needs only the contact as inserted.
  override async forNewContacts(
    manager: EntityManager,
    funnelIds: string[],
    read?: unknown,
  ): Promise<NewContactsRecorder> {
    const automations =
      (read as EnabledAutomation[] | null | undefined) ??
      (await this.automations.enabledForFunnels(manager, funnelIds));
    return async (changes, contacts) => {
      const matches = automations.length ? matchingAutomations(changes, automations, contacts) : [];
      if (matches.length) await this.automations.insertRuns(manager, runsFor(matches, []));
    };
  }

  async forgetContact(manager: EntityManager, funnelId: string, contactId: string): Promise<void> {
    await this.automations.deleteRunsOfContact(manager, funnelId, contactId);
  }

  override newContactsRead(funnelIdSql: string): string {
    return AutomationsRepository.enabledJson(funnelIdSql);
  }

  override noRunsCondition(funnelIdSql: string): string {
    return AutomationsRepository.noEnabledAutomation(funnelIdSql);
  }

  /** The funnel's automations, oldest first: what they do, never a webhook secret. */
  async list(funnelId: string, companyId?: string): Promise<AutomationSummary[]> {
    const funnel = companyId
      ? await this.funnels.findForCompany(companyId, funnelId)
      : await this.funnels.findById(funnelId);
    return (await this.automations.listForFunnel(funnel.id)).map(summarise);
  }

  /**
   * The automation, for an operator any; for the REST API one of its funnel's message automations
   * (webhooks stay with the operator and the webhook subscriptions routes).
   */
  private async find(id: string, scope?: AutomationScope): Promise<Automation> {
    if (scope) await this.funnels.findForCompany(scope.companyId, scope.funnelId);
    // A path's uuid may be spelled in capitals; PostgreSQL stores and returns it in lower case.
    const funnelId = scope?.funnelId.toLowerCase();
    const automation = isUuid(id) ? await this.automations.findById(id, funnelId) : null;
    if (!automation || (funnelId && automation.funnelId !== funnelId))
      throw new NotFoundError('Automation not found');
    if (scope && automation.action !== 'message') {
      throw new ValidationError(
        'only message automations are managed here; webhooks through /v1/funnels/{funnelId}/webhooks or the admin CLI',
      );
    }
    return automation;
  }

  /**
   * Switches an automation on or off; one that is off records no runs (pending runs still deliver).
   * `scope` (the REST API) limits it to one funnel of the company.
   */
  async setEnabled(id: string, enabled: unknown, scope?: AutomationScope): Promise<AutomationSummary> {
    if (typeof enabled !== 'boolean') throw new ValidationError('enabled must be true or false');
    const automation = await this.find(id, scope);
    if (automation.enabled !== enabled) await this.automations.setEnabled(id, automation.funnelId, enabled);
    return summarise({ ...automation, enabled });
  }

  async get(id: string, scope: AutomationScope): Promise<AutomationSummary> {
    return summarise(await this.find(id, scope));
  }

  /** Deletes an automation with its runs, pending ones included. */
  async delete(
    id: string,
    scope?: AutomationScope,
  ): Promise<{ id: string; deleted: true; runsDeleted: number }> {
    const funnelId = scope ? (await this.find(id, scope)).funnelId : undefined;
    const deleted = isUuid(id) ? await this.automations.deleteWithRuns(id, funnelId) : undefined;
    if (!deleted) throw new NotFoundError('Automation not found');
    return { id, deleted: true, runsDeleted: deleted.runsDeleted };
  }
}

/** The REST API's view: one funnel of one company; only message automations are theirs to change. */
export interface AutomationScope {
  companyId: string;
  funnelId: string;
}

const unique = <T>(values: T[]): T[] => [...new Set(values)];
