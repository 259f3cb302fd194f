import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A contact message's state as the service observed it: sent, delivered (the SMTP server's
 * acceptance, a gateway's report), first opened, clicks, or failed. Messages recorded before any
 * channel sent them stay `recorded`. A change of state is a change of the contact (its `messages`
 * member), as recording one is.
 */
export class ContactMessageState1796690000000 implements MigrationInterface {
  name = 'ContactMessageState1796690000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE contact_messages
        ADD COLUMN status varchar(16) NOT NULL DEFAULT 'recorded',
        ADD COLUMN sent_at timestamptz,
        ADD COLUMN delivered_at timestamptz,
        ADD COLUMN opened_at timestamptz,
        ADD COLUMN clicked_at timestamptz,
        ADD COLUMN clicks integer NOT NULL DEFAULT 0,
        ADD COLUMN failure varchar(500)`);
    await queryRunner.query(
      'CREATE TRIGGER contact_messages_state_touch_contact AFTER UPDATE ON contact_messages REFERENCING NEW TABLE AS inserted_messages FOR EACH STATEMENT EXECUTE FUNCTION contact_messages_touch_contact()',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER contact_messages_state_touch_contact ON contact_messages');
    await queryRunner.query(`
      ALTER TABLE contact_messages
        DROP COLUMN status, DROP COLUMN sent_at, DROP COLUMN delivered_at, DROP COLUMN opened_at,
        DROP COLUMN clicked_at, DROP COLUMN clicks, DROP COLUMN failure`);
  }
}
