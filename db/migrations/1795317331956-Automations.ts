import { MigrationInterface, QueryRunner } from 'typeorm';

export class Automations1795317331956 implements MigrationInterface {
  name = 'Automations1795317331956';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "automations" ("id" uuid NOT NULL, "funnel_id" uuid NOT NULL, "company_id" uuid NOT NULL, "name" character varying(200) NOT NULL, "trigger" character varying(200) NOT NULL, "enabled" boolean NOT NULL DEFAULT true, "action" character varying(16) NOT NULL, "webhook_url" character varying(2000), "webhook_secret_encrypted" text, "message_channel" character varying(16), "message_subject" character varying(500), "message_template" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_34c2cc382fc780ea36f7c478192" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_automations_funnel_enabled" ON "automations"  ("funnel_id") WHERE enabled',
    );
    await queryRunner.query(
      'CREATE TABLE "automation_runs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "automation_id" uuid NOT NULL, "funnel_id" uuid NOT NULL, "contact_id" uuid NOT NULL, "event" character varying(32) NOT NULL, "payload" jsonb NOT NULL, "status" character varying(16) NOT NULL DEFAULT \'pending\', "attempts" integer NOT NULL DEFAULT \'0\', "next_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "locked_by" character varying(64), "last_error" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "completed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_273137fa78ff9340128ab98445f" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_automation_runs_contact" ON "automation_runs"  ("contact_id") ',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_automation_runs_automation" ON "automation_runs"  ("automation_id") ',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_automation_runs_funnel" ON "automation_runs"  ("funnel_id", "created_at") ',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_automation_runs_due" ON "automation_runs"  ("next_attempt_at") WHERE status IN (\'pending\', \'running\')',
    );
    await queryRunner.query(
      'ALTER TABLE "automations" ADD CONSTRAINT "FK_fbc6d562211f741efecabb8f188" FOREIGN KEY ("funnel_id") REFERENCES "funnels"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "automation_runs" ADD CONSTRAINT "FK_a61ba11dea20d2eb0166b97e5a8" FOREIGN KEY ("automation_id") REFERENCES "automations"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "automation_runs" ADD CONSTRAINT "FK_4a8fc8845846caf73ea926ab97e" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "automation_runs" DROP CONSTRAINT "FK_4a8fc8845846caf73ea926ab97e"');
    await queryRunner.query('ALTER TABLE "automation_runs" DROP CONSTRAINT "FK_a61ba11dea20d2eb0166b97e5a8"');
    await queryRunner.query('ALTER TABLE "automations" DROP CONSTRAINT "FK_fbc6d562211f741efecabb8f188"');
    await queryRunner.query('DROP INDEX "public"."idx_automation_runs_due"');
    await queryRunner.query('DROP INDEX "public"."idx_automation_runs_funnel"');
    await queryRunner.query('DROP INDEX "public"."idx_automation_runs_automation"');
    await queryRunner.query('DROP INDEX "public"."idx_automation_runs_contact"');
    await queryRunner.query('DROP TABLE "automation_runs"');
    await queryRunner.query('DROP INDEX "public"."idx_automations_funnel_enabled"');
    await queryRunner.query('DROP TABLE "automations"');
  }
}
