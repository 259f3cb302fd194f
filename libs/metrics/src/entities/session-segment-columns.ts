import { Column } from 'typeorm';

/**
 * The session attributes the filters narrow by (docs/METRICS.md), as columns: declared once for
 * the sessions and for the tables that keep a copy beside their rows (the step summaries and the
 * segment rollups), so the copies cannot drift from the original.
 */
export abstract class SessionSegmentColumns {
  @Column({ type: 'varchar', length: 8, nullable: true })
  device: string | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  utmSource: string | null;

  @Column({ type: 'varchar', length: 8, nullable: true })
  abVariant: string | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  utmMedium: string | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  utmCampaign: string | null;
}
