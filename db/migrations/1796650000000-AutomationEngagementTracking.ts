import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Email automations track opens (a pixel) and clicks (links through the service) unless turned
 * off per automation; existing ones track, as new ones do by default.
 */
export class AutomationEngagementTracking1796650000000 implements MigrationInterface {
  name = 'AutomationEngagementTracking1796650000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE automations ADD COLUMN track_engagement boolean NOT NULL DEFAULT true',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE automations DROP COLUMN track_engagement');
  }
}
