import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Erasure and REST hooks: a contact.deleted run outlives its contact (no foreign key from runs to
 * contacts); erased contacts and their messages leave anonymous rows for the metrics counts; REST
 * hook subscriptions own the webhook automations that deliver them. Generated from the entities.
 */
export class ContactErasureAndWebhookSubscriptions1795800000000 implements MigrationInterface {
  name = 'ContactErasureAndWebhookSubscriptions1795800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "automation_runs" DROP CONSTRAINT "FK_4a8fc8845846caf73ea926ab97e"');
    await queryRunner.query(
      'CREATE TABLE "webhook_subscriptions" ("id" uuid NOT NULL, "funnel_id" uuid NOT NULL, "company_id" uuid NOT NULL, "target_url" character varying(2000) NOT NULL, "events" text array NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_bf631ae77d39849d599817fb6f4" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_webhook_subscriptions_funnel" ON "webhook_subscriptions"  ("funnel_id", "created_at") ',
    );
    await queryRunner.query(
      'CREATE TABLE "erased_contacts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "funnel_id" uuid NOT NULL, "converted_at" TIMESTAMP WITH TIME ZONE, "erased_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_aee050c0b1938896c47014bf70f" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_erased_contacts_converted" ON "erased_contacts"  ("funnel_id", "converted_at") ',
    );
    await queryRunner.query(
      'CREATE TABLE "erased_contact_messages" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "funnel_id" uuid NOT NULL, "sent_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_af13bce7de8c1315af17ed8b2b6" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_erased_contact_messages_sent" ON "erased_contact_messages"  ("funnel_id", "sent_at") ',
    );
    await queryRunner.query('ALTER TABLE "automations" ADD "subscription_id" uuid');
    await queryRunner.query(
      'CREATE INDEX "idx_automations_subscription" ON "automations"  ("subscription_id") ',
    );
    await queryRunner.query(
      'ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "FK_a3230c8c4957ca2e5129c28533a" FOREIGN KEY ("funnel_id") REFERENCES "funnels"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "automations" ADD CONSTRAINT "FK_23d44cab43bd7e2b90af6b32d43" FOREIGN KEY ("subscription_id") REFERENCES "webhook_subscriptions"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "erased_contacts" ADD CONSTRAINT "FK_e334dac6218bc8a83ded9749cc8" FOREIGN KEY ("funnel_id") REFERENCES "funnels"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "erased_contact_messages" ADD CONSTRAINT "FK_4fb0c618bca6909d747a8ce2219" FOREIGN KEY ("funnel_id") REFERENCES "funnels"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "erased_contact_messages" DROP CONSTRAINT "FK_4fb0c618bca6909d747a8ce2219"',
    );
    await queryRunner.query('ALTER TABLE "erased_contacts" DROP CONSTRAINT "FK_e334dac6218bc8a83ded9749cc8"');
    await queryRunner.query('ALTER TABLE "automations" DROP CONSTRAINT "FK_23d44cab43bd7e2b90af6b32d43"');
    await queryRunner.query(
      'ALTER TABLE "webhook_subscriptions" DROP CONSTRAINT "FK_a3230c8c4957ca2e5129c28533a"',
    );
    await queryRunner.query('DROP INDEX "public"."idx_automations_subscription"');
    await queryRunner.query('ALTER TABLE "automations" DROP COLUMN "subscription_id"');
    await queryRunner.query('DROP INDEX "public"."idx_erased_contact_messages_sent"');
    await queryRunner.query('DROP TABLE "erased_contact_messages"');
    await queryRunner.query('DROP INDEX "public"."idx_erased_contacts_converted"');
    await queryRunner.query('DROP TABLE "erased_contacts"');
    await queryRunner.query('DROP INDEX "public"."idx_webhook_subscriptions_funnel"');
    await queryRunner.query('DROP TABLE "webhook_subscriptions"');
    await queryRunner.query(
      'ALTER TABLE "automation_runs" ADD CONSTRAINT "FK_4a8fc8845846caf73ea926ab97e" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
  }
}
