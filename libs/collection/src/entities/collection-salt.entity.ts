import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The salt of one UTC day that visitor ids of browser collection are derived from. Kept in the
 * database so every replica derives the same id; deleted once its day is over, after which no one
 * can tell whose visit an id was.
 */
@Entity('collection_salts')
export class CollectionSalt {
  /** The UTC day, YYYY-MM-DD. */
  @PrimaryColumn({ type: 'date' })
  day: string;

  @Column({ type: 'bytea' })
  salt: Buffer;
}
