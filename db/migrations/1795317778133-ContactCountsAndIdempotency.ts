import { MigrationInterface, QueryRunner } from 'typeorm';

export class ContactCountsAndIdempotency1795317778133 implements MigrationInterface {
  name = 'ContactCountsAndIdempotency1795317778133';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "funnel_contact_counts" ("funnel_id" uuid NOT NULL, "contact_count" bigint NOT NULL DEFAULT \'0\', CONSTRAINT "PK_219125e22dbc22615e2c2504765" PRIMARY KEY ("funnel_id"))',
    );
    await queryRunner.query(
      'CREATE TABLE "idempotency_keys" ("company_id" uuid NOT NULL, "key" character varying(255) NOT NULL, "fingerprint" character(64) NOT NULL, "response_status" smallint NOT NULL, "response_body" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_7a26d3174efb4d4e54d5fa7824b" PRIMARY KEY ("company_id", "key"))',
    );
    await queryRunner.query(
      'CREATE INDEX "idx_idempotency_keys_created" ON "idempotency_keys"  ("created_at") ',
    );
    await queryRunner.query(
      'ALTER TABLE "funnel_contact_counts" ADD CONSTRAINT "FK_219125e22dbc22615e2c2504765" FOREIGN KEY ("funnel_id") REFERENCES "funnels"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    await queryRunner.query(
      'ALTER TABLE "idempotency_keys" ADD CONSTRAINT "FK_413df4a6f0a4f83730ec81e442e" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE NO ACTION',
    );
    // Contact counts per funnel, kept by statement-level triggers in the writer's transaction, so
    // every writer (API, admin seed, bulk loads) keeps them right and a bulk insert costs one update.
    await queryRunner.query(`
      CREATE FUNCTION funnel_contact_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO funnel_contact_counts (funnel_id, contact_count)
        SELECT funnel_id, count(*) FROM inserted_contacts GROUP BY funnel_id ORDER BY funnel_id
        ON CONFLICT (funnel_id) DO UPDATE SET contact_count = funnel_contact_counts.contact_count + EXCLUDED.contact_count;
        RETURN NULL;
      END $$`);
    // An update, not an upsert: when a funnel is deleted its count row may already be gone.
    await queryRunner.query(`
      CREATE FUNCTION funnel_contact_counts_remove() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE funnel_contact_counts c SET contact_count = c.contact_count - d.removed
        FROM (SELECT funnel_id, count(*) AS removed FROM deleted_contacts GROUP BY funnel_id) d
        WHERE c.funnel_id = d.funnel_id;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION funnel_contact_counts_clear() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM funnel_contact_counts;
        RETURN NULL;
      END $$`);
    // A contact never moves to another funnel (the counts rely on it).
    await queryRunner.query(`
      CREATE FUNCTION contacts_keep_funnel() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'a contact cannot move to another funnel';
      END $$`);
    await queryRunner.query(
      'CREATE TRIGGER contacts_count_insert AFTER INSERT ON contacts REFERENCING NEW TABLE AS inserted_contacts FOR EACH STATEMENT EXECUTE FUNCTION funnel_contact_counts_add()',
    );
    await queryRunner.query(
      'CREATE TRIGGER contacts_count_delete AFTER DELETE ON contacts REFERENCING OLD TABLE AS deleted_contacts FOR EACH STATEMENT EXECUTE FUNCTION funnel_contact_counts_remove()',
    );
    await queryRunner.query(
      'CREATE TRIGGER contacts_count_truncate AFTER TRUNCATE ON contacts FOR EACH STATEMENT EXECUTE FUNCTION funnel_contact_counts_clear()',
    );
    await queryRunner.query(
      'CREATE TRIGGER contacts_keep_funnel BEFORE UPDATE OF funnel_id ON contacts FOR EACH ROW WHEN (OLD.funnel_id IS DISTINCT FROM NEW.funnel_id) EXECUTE FUNCTION contacts_keep_funnel()',
    );
    await queryRunner.query(
      'INSERT INTO funnel_contact_counts (funnel_id, contact_count) SELECT funnel_id, count(*) FROM contacts GROUP BY funnel_id',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER contacts_keep_funnel ON contacts');
    await queryRunner.query('DROP TRIGGER contacts_count_truncate ON contacts');
    await queryRunner.query('DROP TRIGGER contacts_count_delete ON contacts');
    await queryRunner.query('DROP TRIGGER contacts_count_insert ON contacts');
    await queryRunner.query('DROP FUNCTION contacts_keep_funnel()');
    await queryRunner.query('DROP FUNCTION funnel_contact_counts_clear()');
    await queryRunner.query('DROP FUNCTION funnel_contact_counts_remove()');
    await queryRunner.query('DROP FUNCTION funnel_contact_counts_add()');
    await queryRunner.query(
      'ALTER TABLE "idempotency_keys" DROP CONSTRAINT "FK_413df4a6f0a4f83730ec81e442e"',
    );
    await queryRunner.query(
      'ALTER TABLE "funnel_contact_counts" DROP CONSTRAINT "FK_219125e22dbc22615e2c2504765"',
    );
    await queryRunner.query('DROP INDEX "public"."idx_idempotency_keys_created"');
    await queryRunner.query('DROP TABLE "idempotency_keys"');
    await queryRunner.query('DROP TABLE "funnel_contact_counts"');
  }
}
