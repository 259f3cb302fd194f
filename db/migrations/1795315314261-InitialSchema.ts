import { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1795315314261 implements MigrationInterface {
  name = 'InitialSchema1795315314261';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "companies" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(200) NOT NULL, "subscription_id" character varying(100) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_d4bc3e82a314fa9e29f652c2c22" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE TABLE "api_keys" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "company_id" uuid NOT NULL, "name" character varying(100), "prefix" character varying(32) NOT NULL, "key_hash" character(64) NOT NULL, "permissions" text array NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "revoked_at" TIMESTAMP WITH TIME ZONE, "last_used_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))',
    );
    await queryRunner.query('CREATE UNIQUE INDEX "uq_api_keys_prefix" ON "api_keys"  ("prefix") ');
    await queryRunner.query('CREATE INDEX "idx_api_keys_company" ON "api_keys"  ("company_id") ');
    await queryRunner.query(
      'CREATE TABLE "funnel_pages" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "funnel_id" uuid NOT NULL, "position" integer NOT NULL, "slug" character varying(200) NOT NULL, "title" character varying(300) NOT NULL, CONSTRAINT "PK_9d709de303d1448e1778b90d3a4" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "uq_funnel_pages_slug" ON "funnel_pages"  ("funnel_id", "slug") ',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX "uq_funnel_pages_position" ON "funnel_pages"  ("funnel_id", "position") ',
    );
    await queryRunner.query(
      'CREATE TABLE "workspaces" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "company_id" uuid NOT NULL, "name" character varying(200) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_098656ae401f3e1a4586f47fd8e" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_workspaces_company" ON "workspaces"  ("company_id", "created_at") ',
    );
    await queryRunner.query(
      'CREATE TABLE "funnels" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "company_id" uuid NOT NULL, "name" character varying(200) NOT NULL, "status" character varying(16) NOT NULL DEFAULT \'offline\', "contact_statuses" text array NOT NULL DEFAULT \'{lead,converted}\', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_d4a12f72b8c7eb9074e20a415da" PRIMARY KEY ("id"))',
    );
    await queryRunner.query('CREATE INDEX "idx_funnels_company" ON "funnels"  ("company_id", "id") ');
    await queryRunner.query(
      'CREATE INDEX "idx_funnels_workspace" ON "funnels"  ("workspace_id", "created_at") ',
    );
    await queryRunner.query(
      'CREATE TABLE "contact_messages" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "contact_id" uuid NOT NULL, "funnel_id" uuid NOT NULL, "name" character varying(200) NOT NULL, "type" character varying(16) NOT NULL, "subject" character varying(500), "content" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_b74f96eb2edd977ccfba6533293" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_contact_messages_funnel_sent" ON "contact_messages"  ("funnel_id", "created_at") ',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_contact_messages_contact" ON "contact_messages"  ("contact_id", "created_at") ',
    );
    await queryRunner.query(
      'CREATE TABLE "contacts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "funnel_id" uuid NOT NULL, "company_id" uuid NOT NULL, "status" character varying(100) NOT NULL, "email" character varying(320), "phone" character varying(40), "first_name" character varying(200), "last_name" character varying(200), "name" character varying(400), "full_address" character varying(1000), "timezone" character varying(100), "website" character varying(2000), "birthday" character varying(100), "postal_code" character varying(40), "city" character varying(200), "state" character varying(200), "country" character varying(200), "street" character varying(300), "house_number" character varying(40), "converted_at" TIMESTAMP WITH TIME ZONE, "meta" jsonb NOT NULL DEFAULT \'{}\', "utm_params" jsonb NOT NULL DEFAULT \'{}\', "properties" jsonb NOT NULL DEFAULT \'{}\', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_b99cd40cfd66a99f1571f4f72e6" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE TABLE "contact_field_values" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "contact_id" uuid NOT NULL, "field_name" character varying(64) NOT NULL, "value" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_004b7fe2754ff68619d4aad066a" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_contact_field_values_contact" ON "contact_field_values"  ("contact_id", "created_at") ',
    );
    await queryRunner.query(
      'ALTER TABLE "api_keys" ADD CONSTRAINT "FK_8396859f08e7ad26726c9b3860e" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "funnel_pages" ADD CONSTRAINT "FK_718869786b66a5be0dfae48f0d7" FOREIGN KEY ("funnel_id") REFERENCES "funnels"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "workspaces" ADD CONSTRAINT "FK_9043fd40934f8837f97892a0549" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "funnels" ADD CONSTRAINT "FK_4b7fbd01c85f42623e0a0ffc86d" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "contact_messages" ADD CONSTRAINT "FK_bc311d842cae5c60b72ceeab37a" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "contacts" ADD CONSTRAINT "FK_a2d6c41f294e892f7d43ee6a958" FOREIGN KEY ("funnel_id") REFERENCES "funnels"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "contact_field_values" ADD CONSTRAINT "FK_6822f2ccb42d0e20e2d2a78177e" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    // Sort indexes: missing values first, so a backward scan lists them last (see Contact).
    await queryRunner.query(
      'CREATE INDEX "idx_contacts_sort_converted_at" ON "contacts" ("funnel_id", "converted_at" NULLS FIRST, "id")',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_contacts_sort_email" ON "contacts" ("funnel_id", "email" NULLS FIRST, "id")',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_contacts_sort_first_name" ON "contacts" ("funnel_id", "first_name" NULLS FIRST, "id")',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_contacts_sort_last_name" ON "contacts" ("funnel_id", "last_name" NULLS FIRST, "id")',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "public"."idx_contacts_sort_converted_at"');
    await queryRunner.query('DROP INDEX "public"."idx_contacts_sort_email"');
    await queryRunner.query('DROP INDEX "public"."idx_contacts_sort_first_name"');
    await queryRunner.query('DROP INDEX "public"."idx_contacts_sort_last_name"');
    await queryRunner.query(
      'ALTER TABLE "contact_field_values" DROP CONSTRAINT "FK_6822f2ccb42d0e20e2d2a78177e"',
    );
    await queryRunner.query('ALTER TABLE "contacts" DROP CONSTRAINT "FK_a2d6c41f294e892f7d43ee6a958"');
    await queryRunner.query(
      'ALTER TABLE "contact_messages" DROP CONSTRAINT "FK_bc311d842cae5c60b72ceeab37a"',
    );
    await queryRunner.query('ALTER TABLE "funnels" DROP CONSTRAINT "FK_4b7fbd01c85f42623e0a0ffc86d"');
    await queryRunner.query('ALTER TABLE "workspaces" DROP CONSTRAINT "FK_9043fd40934f8837f97892a0549"');
    await queryRunner.query('ALTER TABLE "funnel_pages" DROP CONSTRAINT "FK_718869786b66a5be0dfae48f0d7"');
    await queryRunner.query('ALTER TABLE "api_keys" DROP CONSTRAINT "FK_8396859f08e7ad26726c9b3860e"');
    await queryRunner.query('DROP INDEX "public"."idx_contact_field_values_contact"');
    await queryRunner.query('DROP TABLE "contact_field_values"');
    await queryRunner.query('DROP TABLE "contacts"');
    await queryRunner.query('DROP INDEX "public"."idx_contact_messages_contact"');
    await queryRunner.query('DROP INDEX "public"."idx_contact_messages_funnel_sent"');
    await queryRunner.query('DROP TABLE "contact_messages"');
    await queryRunner.query('DROP INDEX "public"."idx_funnels_workspace"');
    await queryRunner.query('DROP INDEX "public"."idx_funnels_company"');
    await queryRunner.query('DROP TABLE "funnels"');
    await queryRunner.query('DROP INDEX "public"."idx_workspaces_company"');
    await queryRunner.query('DROP TABLE "workspaces"');
    await queryRunner.query('DROP INDEX "public"."uq_funnel_pages_position"');
    await queryRunner.query('DROP INDEX "public"."uq_funnel_pages_slug"');
    await queryRunner.query('DROP TABLE "funnel_pages"');
    await queryRunner.query('DROP INDEX "public"."idx_api_keys_company"');
    await queryRunner.query('DROP INDEX "public"."uq_api_keys_prefix"');
    await queryRunner.query('DROP TABLE "api_keys"');
    await queryRunner.query('DROP TABLE "companies"');
  }
}
