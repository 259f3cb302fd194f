import { Injectable } from '@nestjs/common';
import { ValidationError } from '@app/core';
import { CITUS_PLAN, Placement } from '../../../../db/citus-plan';
import { CitusPlacement, CitusRepository } from './citus.repository';

export interface DistributionResult {
  citus: string;
  /** Tables placed by this run, in the order they were placed. */
  placed: { table: string; placement: string }[];
  /** Tables Citus held as the plan says already. */
  alreadyPlaced: string[];
}

type Step =
  { table: string; reference: true } | { table: string; column: string; colocateWith: string | null };

/** How a placement reads in the result: `reference` or `distributed by funnel_id`. */
function describe(placement: Placement): string {
  return 'reference' in placement
    ? 'reference'
    : 'distributed' in placement
      ? `distributed by ${placement.distributed}`
      : 'coordinator';
}

function fits(actual: CitusPlacement | null, planned: Placement): boolean {
  if ('coordinator' in planned) return actual === null;
  if ('reference' in planned) return actual?.method === 'n';
  return actual?.method === 'h' && actual.column === planned.distributed;
}

/** `tables` with each after the tables it refers to (those placed already or in the list). */
function referencedFirst(tables: string[], keys: [string, string][]): string[] {
  const order: string[] = [];
  const pending = new Set(tables);
  while (pending.size) {
    const ready = [...pending].filter(
      (t) => !keys.some(([from, to]) => from === t && pending.has(to) && to !== t),
    );
    if (!ready.length) throw new Error(`foreign keys form a cycle among: ${[...pending].join(', ')}`);
    for (const t of ready) {
      order.push(t);
      pending.delete(t);
    }
  }
  return order;
}

/**
 * Turns a migrated database on a Citus coordinator into the distributed schema of
 * db/citus-plan.ts: reference tables first (each after those it refers to), then each group of
 * tables distributed by the same column, co-located with its group's first table. Tables already
 * placed as planned are left alone, so a rerun finishes an interrupted run.
 */
@Injectable()
export class CitusDistributionService {
  constructor(private readonly citus: CitusRepository) {}

  async distribute(shardCount?: number): Promise<DistributionResult> {
    const version = await this.citus.citusVersion();
    if (!version)
      throw new ValidationError(
        'this database has no Citus extension: run CREATE EXTENSION citus on the coordinator first',
      );
    if (!(await this.citus.coordinatorInMetadata())) {
      // The caches' NOTIFY triggers run on the coordinator's copy of the reference tables only.
      throw new ValidationError(
        "the coordinator is not in Citus's metadata: run SELECT citus_set_coordinator_host('<host>', <port>) first",
      );
    }
    const placements = await this.citus.placements();
    const unplanned = [...placements.keys()].filter((t) => !(t in CITUS_PLAN));
    if (unplanned.length)
      throw new ValidationError(`tables missing from the Citus plan: ${unplanned.join(', ')}`);
    const misplaced = [...placements].filter(([t, p]) => p !== null && !fits(p, CITUS_PLAN[t]));
    if (misplaced.length) {
      throw new ValidationError(
        `tables Citus holds otherwise than planned: ${misplaced.map(([t]) => t).join(', ')}`,
      );
    }
    const steps = this.steps(placements, await this.citus.foreignKeys());
    const placed = steps.length ? await this.place(steps, shardCount) : [];
    const alreadyPlaced = [...placements].filter(([t, p]) => p !== null && t in CITUS_PLAN).map(([t]) => t);
    return { citus: version, placed, alreadyPlaced };
  }

  /**
   * Places the tables in one transaction. The foreign keys of the tables to distribute are set
   * aside first and added back last: while one exists, making the table it refers to a reference
   * table turns the referring table into a Citus local table, which then cannot be distributed
   * while its own referrers are local.
   */
  private async place(steps: Step[], shardCount?: number): Promise<DistributionResult['placed']> {
    const distributed = steps.filter((s) => !('reference' in s)).map((s) => s.table);
    return this.citus.inDistributionTransaction(shardCount, async (session) => {
      const keys = await this.citus.foreignKeysOf(session, distributed);
      for (const key of keys) await this.citus.dropForeignKey(session, key);
      const done: DistributionResult['placed'] = [];
      for (const step of steps) {
        try {
          if ('reference' in step) await this.citus.createReferenceTable(session, step.table);
          else await this.citus.createDistributedTable(session, step.table, step.column, step.colocateWith);
        } catch (error) {
          throw new Error(`placing ${step.table}: ${(error as Error).message}`);
        }
        done.push({ table: step.table, placement: describe(CITUS_PLAN[step.table]) });
      }
      for (const key of keys) await this.citus.addForeignKey(session, key);
      return done;
    });
  }

  private steps(placements: Map<string, CitusPlacement | null>, keys: [string, string][]): Step[] {
    const present = Object.keys(CITUS_PLAN).filter((t) => placements.has(t));
    const todo = (t: string) => placements.get(t) === null;
    const references = present.filter((t) => 'reference' in CITUS_PLAN[t] && todo(t));
    const steps: Step[] = referencedFirst(references, keys).map((table) => ({ table, reference: true }));
    const columns = [
      ...new Set(
        present.flatMap((t) => {
          const p = CITUS_PLAN[t];
          return 'distributed' in p ? [p.distributed] : [];
        }),
      ),
    ];
    for (const column of columns) {
      const group = present.filter((t) => {
        const p = CITUS_PLAN[t];
        return 'distributed' in p && p.distributed === column;
      });
      const [anchor] = group;
      const rest = referencedFirst(group.slice(1).filter(todo), keys);
      if (todo(anchor)) steps.push({ table: anchor, column, colocateWith: null });
      for (const table of rest) steps.push({ table, column, colocateWith: anchor });
    }
    return steps;
  }
}
