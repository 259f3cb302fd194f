import { MigrationInterface, QueryRunner } from 'typeorm';

export class OAuthIssuer1795710000000 implements MigrationInterface {
  name = 'OAuthIssuer1795710000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "oauth_authorization_codes" ("code_hash" character(64) NOT NULL, "client_id" text NOT NULL, "redirect_uri" text NOT NULL, "code_challenge" character varying(128) NOT NULL, "sealed_tokens" text NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_25c7c7a7cdc5a6eb88200c472ca" PRIMARY KEY ("code_hash"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_oauth_authorization_codes_expires" ON "oauth_authorization_codes"  ("expires_at") ',
    );
    await queryRunner.query(
      'CREATE TABLE "oauth_clients" ("id" character varying(64) NOT NULL, "client_name" character varying(200), "redirect_uris" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_c4759172d3431bae6f04e678e0d" PRIMARY KEY ("id"))',
    );
    await queryRunner.query(
      'CREATE TABLE "oauth_pending_authorizations" ("state_hash" character(64) NOT NULL, "client_id" text NOT NULL, "redirect_uri" text NOT NULL, "client_state" text, "code_challenge" character varying(128) NOT NULL, "scope" text, "issuer" text NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_0a28216b30c622f61f431003ed9" PRIMARY KEY ("state_hash"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_oauth_pending_authorizations_expires" ON "oauth_pending_authorizations"  ("expires_at") ',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "public"."idx_oauth_pending_authorizations_expires"');
    await queryRunner.query('DROP TABLE "oauth_pending_authorizations"');
    await queryRunner.query('DROP TABLE "oauth_clients"');
    await queryRunner.query('DROP INDEX "public"."idx_oauth_authorization_codes_expires"');
    await queryRunner.query('DROP TABLE "oauth_authorization_codes"');
  }
}
