import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  OneToMany,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
  Relation,
} from 'typeorm';
import { Funnel } from '@app/workspaces';
import { MAX_LENGTH } from '../contact-fields';
import { ContactMessage } from './contact-message.entity';

/** How a contact entered (meta.ps_source); contacts created through the API are external-api. */
export const CONTACT_SOURCES = ['manual', 'funnel', 'external-api', 'automation-a', 'automation-b'] as const;

/** Service-managed `meta` members other than ps_converted_at (which has its own column). */
export type ContactMeta = Partial<{
  ps_timezone: string;
  ps_first_seen_at: string;
  ps_last_seen_at: string;
  ps_source: (typeof CONTACT_SOURCES)[number];
  ps_start_slug: string;
  ps_end_slug: string;
  ps_start_page: string;
  ps_result_page: string;
  ps_user_edited_at: string;
  ps_completed_at: string;
  ps_email_verified: boolean;
  ps_email_verified_at: string;
  ps_phone_verified: boolean;
  ps_phone_verified_at: string;
  /** Set by an email's unsubscribe link; email automations skip the contact. */
  ps_unsubscribed: boolean;
  ps_unsubscribed_at: string;
  ps_embed: boolean;
  ps_calA_booked: boolean;
  ps_calB_booked: boolean;
  ps_calC_booked: boolean;
  ps_calD_booked: boolean;
}>;

export type UtmParams = Partial<
  Record<'utm_source' | 'utm_medium' | 'utm_campaign' | 'utm_term' | 'utm_content', string>
>;

export type PropertyValue = string | number | boolean | null;

/**
 * A CRM contact of one funnel. The list sort orders are index-backed: each index puts missing
 * values first, so ascending lists them first and descending (scanned backwards) lists them last.
 */
@Entity('contacts')
// Created in the migration with NULLS FIRST, which TypeORM cannot express.
@Index('idx_contacts_sort_converted_at', { synchronize: false })
@Index('idx_contacts_sort_email', { synchronize: false })
@Index('idx_contacts_sort_first_name', { synchronize: false })
@Index('idx_contacts_sort_last_name', { synchronize: false })
@Index('idx_contacts_sort_updated_at', { synchronize: false })
// The list's filters (ContactSyncAndFilters migration): expressions and NULLS FIRST again. Email
// equality is served by idx_contacts_search_email_prefix (text_pattern_ops serves `=` too).
@Index('idx_contacts_filter_phone', { synchronize: false })
@Index('idx_contacts_filter_status', { synchronize: false })
@Index('idx_contacts_filter_created_at', { synchronize: false })
// Search (ContactSearch migration): an email prefix pattern index and a GIN index on properties.
@Index('idx_contacts_search_email_prefix', { synchronize: false })
@Index('idx_contacts_search_properties', { synchronize: false })
export class Contact {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  // In the primary key as the distribution column of a sharded deployment (docs/SCALING.md).
  @PrimaryColumn({ type: 'uuid' })
  funnelId: string;

  @ManyToOne(() => Funnel, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'funnel_id' })
  funnel?: Relation<Funnel>;

  @Column({ type: 'uuid' })
  companyId: string;

  @Column({ type: 'varchar', length: MAX_LENGTH.status })
  status: string;

  @Column({ type: 'varchar', length: MAX_LENGTH.email, nullable: true })
  email: string | null;

  @Column({ type: 'varchar', length: MAX_LENGTH.phone, nullable: true })
  phone: string | null;

  @Column({ type: 'varchar', length: MAX_LENGTH.firstName, nullable: true })
  firstName: string | null;

  @Column({ type: 'varchar', length: MAX_LENGTH.lastName, nullable: true })
  lastName: string | null;

  @Column({ type: 'varchar', length: 400, nullable: true })
  name: string | null;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  fullAddress: string | null;

  /** Deprecated in the API in favour of meta.ps_timezone. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  timezone: string | null;

  @Column({ type: 'varchar', length: MAX_LENGTH.website, nullable: true })
  website: string | null;

  @Column({ type: 'varchar', length: MAX_LENGTH.birthday, nullable: true })
  birthday: string | null;

  @Column({ type: 'varchar', length: MAX_LENGTH.postalCode, nullable: true })
  postalCode: string | null;

  @Column({ type: 'varchar', length: MAX_LENGTH.city, nullable: true })
  city: string | null;

  @Column({ type: 'varchar', length: MAX_LENGTH.state, nullable: true })
  state: string | null;

  @Column({ type: 'varchar', length: MAX_LENGTH.country, nullable: true })
  country: string | null;

  @Column({ type: 'varchar', length: MAX_LENGTH.street, nullable: true })
  street: string | null;

  @Column({ type: 'varchar', length: MAX_LENGTH.houseNumber, nullable: true })
  houseNumber: string | null;

  /** meta.ps_converted_at; a column of its own because it is the default sort order. */
  @Column({ type: 'timestamptz', nullable: true })
  convertedAt: Date | null;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  meta: ContactMeta;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  utmParams: UtmParams;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  properties: Record<string, PropertyValue>;

  @OneToMany(() => ContactMessage, (message) => message.contact)
  messages?: Relation<ContactMessage[]>;

  // Milliseconds, as the API shows them, so updatedAfter=<an updatedAt seen> is exactly "after it".
  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  /** Moved by a database trigger on every update and every message recorded (any writer). */
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
