import { MigrationInterface, QueryRunner } from 'typeorm';

export class WorkspaceListNotifications1796000000000 implements MigrationInterface {
  name = 'WorkspaceListNotifications1796000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Every process keeps each company's workspace list (workspaces and their funnels) in memory;
    // this notification, sent on commit by whoever changes a row that the list shows (a replica,
    // the admin CLI, plain SQL, a cascade), drops the company's entry everywhere.
    await queryRunner.query(`
      CREATE FUNCTION workspace_list_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('workspaces_changed', OLD.company_id::text); END IF;
        IF TG_OP <> 'DELETE' THEN PERFORM pg_notify('workspaces_changed', NEW.company_id::text); END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER workspace_list_notify_change AFTER INSERT OR UPDATE OR DELETE ON workspaces
      FOR EACH ROW EXECUTE FUNCTION workspace_list_notify_change()`);
    await queryRunner.query(`
      CREATE TRIGGER workspace_list_notify_change
      AFTER INSERT OR UPDATE OF workspace_id, company_id, name, status OR DELETE ON funnels
      FOR EACH ROW EXECUTE FUNCTION workspace_list_notify_change()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER workspace_list_notify_change ON funnels');
    await queryRunner.query('DROP TRIGGER workspace_list_notify_change ON workspaces');
    await queryRunner.query('DROP FUNCTION workspace_list_notify_change()');
  }
}
