import { MigrationInterface, QueryRunner } from 'typeorm';

export class OAuthConsentRevocation1796610000000 implements MigrationInterface {
  name = 'OAuthConsentRevocation1796610000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "oauth_revoked_access_tokens" ("token_hash" character(64) NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_2359cab84808a7435fce95fe698" PRIMARY KEY ("token_hash"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_oauth_revoked_access_tokens_expires" ON "oauth_revoked_access_tokens"  ("expires_at") ',
    );
    await queryRunner.query(
      'CREATE TABLE "oauth_consents" ("subject" text NOT NULL, "client_id" text NOT NULL, "scopes" text NOT NULL, "approved_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_882fb8ad87b414012c045a27cad" PRIMARY KEY ("subject", "client_id"))',
    );
    await queryRunner.query(
      'CREATE TABLE "oauth_pending_consents" ("token_hash" character(64) NOT NULL, "browser_hash" character(64) NOT NULL, "subject" text NOT NULL, "client_id" text NOT NULL, "redirect_uri" text NOT NULL, "client_state" text, "code_challenge" character varying(128) NOT NULL, "scope" text NOT NULL, "issuer" text NOT NULL, "sealed_tokens" text NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_fbaa7c5424886483e3b116f4f9d" PRIMARY KEY ("token_hash"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_oauth_pending_consents_expires" ON "oauth_pending_consents"  ("expires_at") ',
    );
    await queryRunner.query(
      'CREATE TABLE "oauth_refresh_tokens" ("token_hash" character(64) NOT NULL, "client_id" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_e670f36d6278d3f45fce07dbc23" PRIMARY KEY ("token_hash"))',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "oauth_refresh_tokens"');
    await queryRunner.query('DROP INDEX "public"."idx_oauth_pending_consents_expires"');
    await queryRunner.query('DROP TABLE "oauth_pending_consents"');
    await queryRunner.query('DROP TABLE "oauth_consents"');
    await queryRunner.query('DROP INDEX "public"."idx_oauth_revoked_access_tokens_expires"');
    await queryRunner.query('DROP TABLE "oauth_revoked_access_tokens"');
  }
}
