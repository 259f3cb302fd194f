import { MigrationInterface, QueryRunner } from 'typeorm';

// A funnel's contact count was one row, locked by every insert of a contact until its commit: the
// funnel's new contacts were written one transaction at a time. Now a writer adds to the slot of
// its connection (one of SLOTS) and a count is the sum of the funnel's rows.
const SLOTS = 16;
const MY_SLOT = `(pg_backend_pid() % ${SLOTS})::smallint`;

const COUNTS_ADD = `
      DECLARE f record;
      BEGIN
        FOR f IN SELECT funnel_id, count(*) AS n FROM inserted_contacts GROUP BY funnel_id ORDER BY funnel_id LOOP
          INSERT INTO funnel_contact_counts (funnel_id, slot, contact_count) VALUES (f.funnel_id, ${MY_SLOT}, f.n)
          ON CONFLICT (funnel_id, slot) DO UPDATE SET contact_count = funnel_contact_counts.contact_count + EXCLUDED.contact_count;
        END LOOP;
        RETURN NULL;
      END`;

// An update, not an upsert: when a funnel is deleted its count rows may already be gone. The
// connection's own slot if the funnel has it, else the funnel's first.
const COUNTS_REMOVE = `
      DECLARE f record;
      BEGIN
        FOR f IN SELECT funnel_id, count(*) AS n FROM deleted_contacts GROUP BY funnel_id ORDER BY funnel_id LOOP
          UPDATE funnel_contact_counts SET contact_count = contact_count - f.n
          WHERE funnel_id = f.funnel_id AND slot = (
            SELECT s.slot FROM funnel_contact_counts s WHERE s.funnel_id = f.funnel_id
            ORDER BY s.slot = ${MY_SLOT} DESC, s.slot LIMIT 1);
        END LOOP;
        RETURN NULL;
      END`;

// The bodies before (ContactTriggersPerFunnel).
const COUNTS_ADD_BEFORE = `
      DECLARE f record;
      BEGIN
        FOR f IN SELECT funnel_id, count(*) AS n FROM inserted_contacts GROUP BY funnel_id ORDER BY funnel_id LOOP
          INSERT INTO funnel_contact_counts (funnel_id, contact_count) VALUES (f.funnel_id, f.n)
          ON CONFLICT (funnel_id) DO UPDATE SET contact_count = funnel_contact_counts.contact_count + EXCLUDED.contact_count;
        END LOOP;
        RETURN NULL;
      END`;

const COUNTS_REMOVE_BEFORE = `
      DECLARE f record;
      BEGIN
        FOR f IN SELECT funnel_id, count(*) AS n FROM deleted_contacts GROUP BY funnel_id ORDER BY funnel_id LOOP
          UPDATE funnel_contact_counts SET contact_count = contact_count - f.n WHERE funnel_id = f.funnel_id;
        END LOOP;
        RETURN NULL;
      END`;

const define = (name: string, body: string) =>
  `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$${body} $$`;

/** A funnel's contact count in slots, so its writers on different connections do not queue. */
export class ContactCountSlots1796700000000 implements MigrationInterface {
  name = 'ContactCountSlots1796700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "funnel_contact_counts" ADD "slot" smallint NOT NULL DEFAULT 0');
    await queryRunner.query('ALTER TABLE "funnel_contact_counts" ALTER COLUMN "slot" DROP DEFAULT');
    await queryRunner.query(
      'ALTER TABLE "funnel_contact_counts" DROP CONSTRAINT "PK_219125e22dbc22615e2c2504765"',
    );
    await queryRunner.query(
      'ALTER TABLE "funnel_contact_counts" ADD CONSTRAINT "PK_c4eb07987c202ee7f8705ba26b0" PRIMARY KEY ("funnel_id", "slot")',
    );
    await queryRunner.query(define('funnel_contact_counts_add', COUNTS_ADD));
    await queryRunner.query(define('funnel_contact_counts_remove', COUNTS_REMOVE));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(define('funnel_contact_counts_add', COUNTS_ADD_BEFORE));
    await queryRunner.query(define('funnel_contact_counts_remove', COUNTS_REMOVE_BEFORE));
    // Each funnel's slots summed into slot 0, the others removed.
    await queryRunner.query(
      `INSERT INTO funnel_contact_counts (funnel_id, slot, contact_count)
       SELECT funnel_id, 0, sum(contact_count) FROM funnel_contact_counts GROUP BY funnel_id
       ON CONFLICT (funnel_id, slot) DO UPDATE SET contact_count = EXCLUDED.contact_count`,
    );
    await queryRunner.query('DELETE FROM funnel_contact_counts WHERE slot <> 0');
    await queryRunner.query(
      'ALTER TABLE "funnel_contact_counts" DROP CONSTRAINT "PK_c4eb07987c202ee7f8705ba26b0"',
    );
    await queryRunner.query(
      'ALTER TABLE "funnel_contact_counts" ADD CONSTRAINT "PK_219125e22dbc22615e2c2504765" PRIMARY KEY ("funnel_id")',
    );
    await queryRunner.query('ALTER TABLE "funnel_contact_counts" DROP COLUMN "slot"');
  }
}
