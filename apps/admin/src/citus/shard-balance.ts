import { ShardGroup } from './citus-shards.repository';

export interface WorkerLoad {
  worker: string;
  contacts: number;
  events: number;
}

/** Each worker's rows, and how far the fullest or emptiest is from an even share, in percent. */
export interface Spread {
  workers: WorkerLoad[];
  contactsFromEven: number;
  eventsFromEven: number;
}

export interface ShardMove {
  shard: string;
  from: string;
  to: string;
  contacts: number;
  events: number;
}

const weight = (g: { contacts: number; events: number }) => g.contacts + g.events;

/** The spread of `groups` over `workers` (a worker without groups counts as empty). */
export function spreadOf(workers: string[], groups: ShardGroup[]): Spread {
  const loads = workers.map((worker) => {
    const held = groups.filter((g) => g.worker === worker);
    return {
      worker,
      contacts: held.reduce((n, g) => n + g.contacts, 0),
      events: held.reduce((n, g) => n + g.events, 0),
    };
  });
  const fromEven = (kind: 'contacts' | 'events') => {
    const even = loads.reduce((n, w) => n + w[kind], 0) / loads.length;
    if (!even) return 0;
    const worst = Math.max(...loads.map((w) => Math.abs(w[kind] - even) / even)) * 100;
    return Math.round(worst * 10) / 10;
  };
  return { workers: loads, contactsFromEven: fromEven('contacts'), eventsFromEven: fromEven('events') };
}

/**
 * The moves that even out contacts + events per worker: again and again, the shard group of the
 * fullest worker whose move to the emptiest leaves the smallest gap between the two, while that
 * gap is smaller than before. Each move lowers the sum of squared loads, so the plan ends; on a
 * spread it leaves, it plans nothing (a second run moves nothing).
 */
export function planMoves(workers: string[], groups: ShardGroup[]): ShardMove[] {
  if (workers.length < 2) return [];
  const load = new Map(workers.map((w) => [w, 0]));
  const placed = groups.filter((g) => load.has(g.worker)).map((g) => ({ ...g }));
  for (const g of placed) load.set(g.worker, load.get(g.worker)! + weight(g));
  const moves: ShardMove[] = [];
  for (;;) {
    const byLoad = [...load.entries()].sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]));
    const [light, lightLoad] = byLoad[0];
    const [heavy, heavyLoad] = byLoad[byLoad.length - 1];
    const gap = heavyLoad - lightLoad;
    const best = placed
      .filter((g) => g.worker === heavy && weight(g) > 0)
      .map((g) => ({ g, after: Math.abs(gap - 2 * weight(g)) }))
      .sort((a, b) => a.after - b.after || a.g.shard.localeCompare(b.g.shard))[0];
    if (!best || best.after >= gap) return moves;
    const { g } = best;
    moves.push({ shard: g.shard, from: heavy, to: light, contacts: g.contacts, events: g.events });
    load.set(heavy, heavyLoad - weight(g));
    load.set(light, lightLoad + weight(g));
    g.worker = light;
  }
}
