import { MigrationInterface, QueryRunner } from 'typeorm';

// On a Citus worker (a node whose group is not the coordinator's 0) the triggers of a reference
// table's placement stay silent: Citus cannot PREPARE a worker's transaction that ran NOTIFY, and
// the service listens on the coordinator, whose own placement runs the same trigger. Without
// Citus the check is skipped (plpgsql plans the inner query only when it runs).
const ON_A_WORKER = `
        IF to_regclass('pg_catalog.pg_dist_local_group') IS NOT NULL THEN
          IF EXISTS (SELECT 1 FROM pg_catalog.pg_dist_local_group WHERE groupid <> 0) THEN RETURN NULL; END IF;
        END IF;`;

const API_KEYS = `
        IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('api_keys_changed', OLD.prefix); END IF;
        IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.prefix <> OLD.prefix) THEN
          PERFORM pg_notify('api_keys_changed', NEW.prefix);
        END IF;
        RETURN NULL;`;
const FUNNELS = `
        PERFORM pg_notify('funnels_changed', OLD.id::text);
        RETURN NULL;`;
const WORKSPACES = `
        IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('workspaces_changed', OLD.company_id::text); END IF;
        IF TG_OP <> 'DELETE' THEN PERFORM pg_notify('workspaces_changed', NEW.company_id::text); END IF;
        RETURN NULL;`;

function define(name: string, body: string): string {
  return `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN${body}
      END $$`;
}

/** The cache-invalidation NOTIFY triggers of api_keys, funnels and workspaces notify from the coordinator only. */
export class NotifyFromCoordinatorOnly1796640000002 implements MigrationInterface {
  name = 'NotifyFromCoordinatorOnly1796640000002';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(define('api_keys_notify_change', ON_A_WORKER + API_KEYS));
    await queryRunner.query(define('funnels_notify_change', ON_A_WORKER + FUNNELS));
    await queryRunner.query(define('workspace_list_notify_change', ON_A_WORKER + WORKSPACES));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(define('api_keys_notify_change', API_KEYS));
    await queryRunner.query(define('funnels_notify_change', FUNNELS));
    await queryRunner.query(define('workspace_list_notify_change', WORKSPACES));
  }
}
