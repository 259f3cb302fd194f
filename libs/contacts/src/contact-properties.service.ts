import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Gauge } from 'prom-client';
import { AppMetrics, ConflictError, LongWork, NotFoundError } from '@app/core';
import { FunnelsService } from '@app/workspaces';
import { assertIds } from './contact-ids';
import { ContactPropertiesRepository, PropertyDefinitions } from './contact-properties.repository';
import { PropertyDefinitionFields, validatePropertyDefinition } from './contact-property.input';
import { ContactPropertyValuesFiller } from './contact-property-values.filler';
import { ContactPropertyDefinition, PropertyType } from './entities/contact-property-definition.entity';

/** A property definition as the API shows it (REST and MCP). */
export interface PropertyDefinitionView {
  name: string;
  type: PropertyType;
  options?: string[];
  unique: boolean;
  label?: string;
  description?: string;
  createdAt: string;
  updatedAt: string;
}

export function presentPropertyDefinition(d: ContactPropertyDefinition): PropertyDefinitionView {
  return {
    name: d.name,
    type: d.type,
    ...(d.options ? { options: d.options } : {}),
    unique: d.unique,
    ...(d.label ? { label: d.label } : {}),
    ...(d.description ? { description: d.description } : {}),
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

/**
 * Typed custom properties of a funnel's contacts: their definitions, and the reader every writer
 * of property values checks them against. Scoped by the caller's company like ContactsService.
 */
@Injectable()
export class ContactPropertiesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly funnels: FunnelsService,
    private readonly repository: ContactPropertiesRepository,
    private readonly filler: ContactPropertyValuesFiller,
    private readonly longWork: LongWork,
    metrics: AppMetrics,
  ) {
    const changing = this.changing;
    new Gauge({
      name: 'contact_writes_waiting_for_definitions',
      help: 'Contact writes waiting, without a database connection, for a property definition change of their funnel',
      registers: [metrics.registry],
      collect() {
        this.set(changing.waiting);
      },
    });
  }

  /** Definition changes running in this process, by funnel, and how many writers wait for them. */
  private readonly changing = Object.assign(new Map<string, Set<Promise<unknown>>>(), { waiting: 0 });

  /**
   * Waits, holding no connection, for the funnel's definition changes running in this process. A
   * change over a large funnel holds the definitions for seconds; each writer of the funnel would
   * otherwise wait for it on a pooled connection, and enough of them would take the pool every
   * company's requests share. A change running in another process is waited for in the database.
   */
  async settled(funnelId: string): Promise<void> {
    const running = this.changing.get(funnelId);
    if (!running) return;
    this.changing.waiting++;
    await Promise.allSettled(running).finally(() => this.changing.waiting--);
  }

  /**
   * The funnel's definitions by name, read in the caller's transaction and held (shared) until
   * it commits, so no definition changes between a check of values and their write.
   */
  definitionsForWrite(manager: EntityManager, funnelId: string): Promise<PropertyDefinitions> {
    return this.repository.definitions(manager, funnelId, { lock: 'shared' });
  }

  /** The funnel's definitions, for a caller whose transaction already holds the lock shared. */
  definitionsHeld(manager: EntityManager, funnelId: string): Promise<PropertyDefinitions> {
    return this.repository.definitions(manager, funnelId);
  }

  /** The funnel's definitions by name, unlocked (for readers such as search and export). */
  definitionsOf(funnelId: string): Promise<PropertyDefinitions> {
    return this.repository.list(funnelId);
  }

  async list(companyId: string, funnelId: string): Promise<PropertyDefinitionView[]> {
    assertIds({ funnelId });
    await this.funnels.findForCompany(companyId, funnelId);
    return [...(await this.repository.list(funnelId)).values()].map(presentPropertyDefinition);
  }

  async get(companyId: string, funnelId: string, name: string): Promise<PropertyDefinitionView> {
    assertIds({ funnelId });
    await this.funnels.findForCompany(companyId, funnelId);
    const definition = (await this.repository.list(funnelId)).get(name);
    if (!definition) throw new NotFoundError('Property not found');
    return presentPropertyDefinition(definition);
  }

  /**
   * Defines a property. Refused (409) when the property has a definition, or when values already
   * stored do not fit it (the count says how many); the values that fit are stored as the type.
   * A number or date property's values are copied for range search after it commits, in chunks
   * (ContactPropertyValuesFiller); until then its ranges read the contacts' properties.
   */
  async create(companyId: string, funnelId: string, input: unknown): Promise<PropertyDefinitionView> {
    assertIds({ funnelId });
    await this.funnels.findForCompany(companyId, funnelId);
    const { name, fields } = validatePropertyDefinition(input);
    // Checking and retyping the stored values reads every contact of the funnel: long work.
    return this.change(companyId, funnelId, async (manager) => {
      const definitions = await this.repository.definitions(manager, funnelId, { lock: 'exclusive' });
      if (definitions.has(name!)) throw new ConflictError(`property ${name} is already defined`);
      await this.assertFits(manager, funnelId, name!, fields);
      const saved = await manager.save(
        manager.create(ContactPropertyDefinition, {
          funnelId,
          name,
          ...fields,
          ...newGeneration(fields.type),
        }),
      );
      await this.repository.retype(manager, funnelId, name!, fields);
      return presentPropertyDefinition(saved);
    });
  }

  /** Changes a definition; a change the stored values do not fit is refused like a creation. */
  async update(
    companyId: string,
    funnelId: string,
    name: string,
    input: unknown,
  ): Promise<PropertyDefinitionView> {
    assertIds({ funnelId });
    await this.funnels.findForCompany(companyId, funnelId);
    return this.change(companyId, funnelId, async (manager) => {
      const current = (await this.repository.definitions(manager, funnelId, { lock: 'exclusive' })).get(name);
      if (!current) throw new NotFoundError('Property not found');
      const { fields } = validatePropertyDefinition(input, current);
      await this.assertFits(manager, funnelId, name, fields);
      // A new type starts a new generation of copied values (the old one's rows are removed later).
      const retyped = fields.type !== current.type;
      Object.assign(current, fields, retyped ? newGeneration(fields.type) : {});
      const saved = await manager.save(current);
      await this.repository.retype(manager, funnelId, name, fields);
      return presentPropertyDefinition(saved);
    });
  }

  /**
   * Removes the definition; the values stay, as text properties (no longer unique). Its rows of
   * contact_property_values are no longer read, and are removed in chunks after it commits.
   */
  async remove(companyId: string, funnelId: string, name: string): Promise<void> {
    assertIds({ funnelId });
    await this.funnels.findForCompany(companyId, funnelId);
    await this.dataSource
      .transaction(async (manager) => {
        await this.repository.definitions(manager, funnelId, { lock: 'exclusive' });
        const { affected } = await manager.delete(ContactPropertyDefinition, { funnelId, name });
        if (!affected) throw new NotFoundError('Property not found');
      })
      .finally(() => this.filler.wake());
  }

  /**
   * A definition change that checks and retypes the stored values: long work (LongWork), known to
   * the funnel's writers while it runs (settled), and the filler woken after it.
   */
  private change<T>(
    companyId: string,
    funnelId: string,
    work: (manager: EntityManager) => Promise<T>,
  ): Promise<T> {
    const running = this.longWork.transaction(companyId, work).finally(() => this.filler.wake());
    const changes = this.changing.get(funnelId) ?? new Set<Promise<unknown>>();
    this.changing.set(funnelId, changes.add(running));
    const forget = () => {
      changes.delete(running);
      if (!changes.size && this.changing.get(funnelId) === changes) this.changing.delete(funnelId);
    };
    running.then(forget, forget);
    return running;
  }

  private async assertFits(
    manager: EntityManager,
    funnelId: string,
    name: string,
    fields: PropertyDefinitionFields,
  ): Promise<void> {
    const { wrongType, shared } = await this.repository.misfits(manager, funnelId, name, fields);
    if (!wrongType && !shared) return;
    const problems = [
      ...(wrongType ? [`${wrongType} stored values of ${name} are not of type ${fields.type}`] : []),
      ...(shared ? [`${shared} contacts share a value of ${name} with another contact`] : []),
    ];
    throw new PropertyMisfitsError(name, wrongType + shared, problems);
  }
}

/** The values of a number or date property are copied anew (by the filler); other types have none. */
function newGeneration(type: PropertyType | undefined) {
  return {
    valuesGeneration: randomUUID(),
    valuesReady: type !== 'number' && type !== 'date',
    valuesCursorCreatedAt: null,
    valuesCursor: null,
  };
}

/** Values already stored do not fit the definition asked for: 409 with their count. */
export class PropertyMisfitsError extends ConflictError {
  constructor(
    name: string,
    readonly misfits: number,
    readonly problems: string[],
  ) {
    super(`${misfits} existing values of ${name} do not fit the definition`);
  }

  override toBody() {
    return { ...super.toBody(), misfits: this.misfits, details: this.problems };
  }
}
