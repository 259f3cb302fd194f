import {
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  Relation,
  UpdateDateColumn,
} from 'typeorm';
import { Funnel } from '@app/workspaces';
import { MAX_CUSTOM_PROPERTY_NAME_LENGTH } from '../contact-fields';

export const PROPERTY_TYPES = ['string', 'number', 'boolean', 'date', 'enum'] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];
export const MAX_PROPERTY_LABEL_LENGTH = 200;
export const MAX_PROPERTY_DESCRIPTION_LENGTH = 2000;

/**
 * The type (and, when `unique`, the uniqueness) of a custom property of a funnel's contacts.
 * A property without a definition holds text, as it always did.
 */
@Entity('contact_property_definitions')
export class ContactPropertyDefinition {
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @ManyToOne(() => Funnel, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'funnel_id' })
  funnel?: Relation<Funnel>;

  @PrimaryColumn({ type: 'varchar', length: MAX_CUSTOM_PROPERTY_NAME_LENGTH })
  name: string;

  @Column({ type: 'varchar', length: 16 })
  type: PropertyType;

  /** The allowed values of an `enum` property, in the order shown; null for the other types. */
  @Column({ type: 'jsonb', nullable: true })
  options: string[] | null;

  @Column({ type: 'boolean', default: false })
  unique: boolean;

  @Column({ type: 'varchar', length: MAX_PROPERTY_LABEL_LENGTH, nullable: true })
  label: string | null;

  @Column({ type: 'varchar', length: MAX_PROPERTY_DESCRIPTION_LENGTH, nullable: true })
  description: string | null;

  /**
   * Whose rows of contact_property_values are this definition's: new at its creation and at each
   * change of type (the rows of an older one are removed in chunks).
   */
  @Column({ type: 'uuid' })
  valuesGeneration: string;

  /**
   * The values stored before the generation began are all copied into contact_property_values
   * (always true for a type without a copy): until then a range search reads `properties`.
   */
  @Column({ type: 'boolean', default: true })
  valuesReady: boolean;

  /** The last contact whose values the filler copied for this generation, in (created_at, id) order. */
  @Column({ type: 'timestamptz', nullable: true })
  valuesCursorCreatedAt: Date | null;

  @Column({ type: 'uuid', nullable: true })
  valuesCursor: string | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
