import { MigrationInterface, QueryRunner } from 'typeorm';

/** A table whose primary key gains its distribution column, with the key's names before and after. */
const PRIMARY_KEYS = [
  { table: 'contacts', before: 'PK_b99cd40cfd66a99f1571f4f72e6', after: 'PK_ab4d62e5bccf2b0b148dfd16fc7' },
  {
    table: 'contact_messages',
    before: 'PK_b74f96eb2edd977ccfba6533293',
    after: 'PK_1b3722f729d98c826a53037fbe7',
  },
  {
    table: 'contact_field_values',
    before: 'PK_004b7fe2754ff68619d4aad066a',
    after: 'PK_da6a3a83841efb6ba76b08cd985',
  },
  {
    table: 'erased_contacts',
    before: 'PK_aee050c0b1938896c47014bf70f',
    after: 'PK_0926810167d2ccd72f303d3814a',
  },
  {
    table: 'erased_contact_messages',
    before: 'PK_af13bce7de8c1315af17ed8b2b6',
    after: 'PK_9bbdc2a969c314ba8bc1612a6b9',
  },
  {
    table: 'webhook_subscriptions',
    before: 'PK_bf631ae77d39849d599817fb6f4',
    after: 'PK_e2ef3de08247f0fc8a0ef79c73f',
  },
  { table: 'automations', before: 'PK_34c2cc382fc780ea36f7c478192', after: 'PK_dc2be6e8b31778869218690e957' },
  {
    table: 'automation_runs',
    before: 'PK_273137fa78ff9340128ab98445f',
    after: 'PK_10eda8732fc8864dbba55eedeb7',
  },
];

/** A foreign key to a funnel's row that gains the funnel (`column` refers to `parent`.id). */
const FOREIGN_KEYS = [
  {
    table: 'contact_messages',
    column: 'contact_id',
    parent: 'contacts',
    before: 'FK_bc311d842cae5c60b72ceeab37a',
    after: 'FK_eb1edbfdf9bfd579123b3adf9fc',
  },
  {
    table: 'contact_field_values',
    column: 'contact_id',
    parent: 'contacts',
    before: 'FK_6822f2ccb42d0e20e2d2a78177e',
    after: 'FK_ea925da3428002326b6344b7746',
  },
  {
    table: 'automations',
    column: 'subscription_id',
    parent: 'webhook_subscriptions',
    before: 'FK_23d44cab43bd7e2b90af6b32d43',
    after: 'FK_8d094b6e6faf90749fdb2635d8d',
  },
  {
    table: 'automation_runs',
    column: 'automation_id',
    parent: 'automations',
    before: 'FK_a61ba11dea20d2eb0166b97e5a8',
    after: 'FK_398365465652bdfaee9495923be',
  },
];

/**
 * Ready for Citus (docs/SCALING.md): every funnel-scoped table carries `funnel_id` in its primary
 * key and in its foreign keys to another funnel-scoped table, so each can be distributed by funnel
 * and co-located. The keys are (id, funnel_id): a lookup by id alone (the worker's claim, an
 * automation by id) stays an index lookup, and per-funnel scans keep their funnel-first indexes.
 * contact_field_values gains the column, filled from its contact. A child row whose funnel differs
 * from its parent's (none is written that way) takes the parent's, so the wider keys validate.
 * Idempotency keys are swept per company, hence (company_id, created_at) for the sweep.
 * Each table is locked while its key is rebuilt (an index build): run it in a quiet window.
 */
export class CitusDistributionKeys1796412000000 implements MigrationInterface {
  name = 'CitusDistributionKeys1796412000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "contact_field_values" ADD "funnel_id" uuid`);
    await queryRunner.query(
      `UPDATE "contact_field_values" v SET "funnel_id" = c."funnel_id" FROM "contacts" c WHERE c."id" = v."contact_id"`,
    );
    await queryRunner.query(`ALTER TABLE "contact_field_values" ALTER COLUMN "funnel_id" SET NOT NULL`);

    for (const fk of FOREIGN_KEYS) {
      await queryRunner.query(
        `UPDATE "${fk.table}" t SET "funnel_id" = p."funnel_id" FROM "${fk.parent}" p
         WHERE p."id" = t."${fk.column}" AND p."funnel_id" <> t."funnel_id"`,
      );
      await queryRunner.query(`ALTER TABLE "${fk.table}" DROP CONSTRAINT "${fk.before}"`);
    }
    for (const pk of PRIMARY_KEYS) {
      await queryRunner.query(`ALTER TABLE "${pk.table}" DROP CONSTRAINT "${pk.before}"`);
      await queryRunner.query(
        `ALTER TABLE "${pk.table}" ADD CONSTRAINT "${pk.after}" PRIMARY KEY ("id", "funnel_id")`,
      );
    }
    for (const fk of FOREIGN_KEYS) {
      await queryRunner.query(
        `ALTER TABLE "${fk.table}" ADD CONSTRAINT "${fk.after}" FOREIGN KEY ("funnel_id", "${fk.column}")
         REFERENCES "${fk.parent}"("funnel_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION`,
      );
    }

    await queryRunner.query(`DROP INDEX "public"."idx_idempotency_keys_created"`);
    await queryRunner.query(
      `CREATE INDEX "idx_idempotency_keys_company_created" ON "idempotency_keys" ("company_id", "created_at")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_idempotency_keys_company_created"`);
    await queryRunner.query(
      `CREATE INDEX "idx_idempotency_keys_created" ON "idempotency_keys" ("created_at")`,
    );

    for (const fk of FOREIGN_KEYS) {
      await queryRunner.query(`ALTER TABLE "${fk.table}" DROP CONSTRAINT "${fk.after}"`);
    }
    for (const pk of PRIMARY_KEYS) {
      await queryRunner.query(`ALTER TABLE "${pk.table}" DROP CONSTRAINT "${pk.after}"`);
      await queryRunner.query(`ALTER TABLE "${pk.table}" ADD CONSTRAINT "${pk.before}" PRIMARY KEY ("id")`);
    }
    for (const fk of FOREIGN_KEYS) {
      await queryRunner.query(
        `ALTER TABLE "${fk.table}" ADD CONSTRAINT "${fk.before}" FOREIGN KEY ("${fk.column}")
         REFERENCES "${fk.parent}"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
      );
    }
    await queryRunner.query(`ALTER TABLE "contact_field_values" DROP COLUMN "funnel_id"`);
  }
}
