import { planMoves, spreadOf } from './shard-balance';

const group = (shard: string, worker: string, contacts: number, events: number) => ({
  shard,
  worker,
  contacts,
  events,
});

/** Groups '1', '2', … on `worker`, each [contacts, events]. */
const groupsOn = (worker: string, rows: [number, number][]) =>
  rows.map(([contacts, events], i) => group(String(i + 1), worker, contacts, events));

describe('planMoves', () => {
  it('moves the shard groups whose move closes the gap most, fullest worker to emptiest', () => {
    const groups = [
      ...groupsOn('a', [
        [10, 90],
        [5, 45],
        [5, 45],
      ]),
      group('4', 'b', 0, 0),
    ];
    expect(planMoves(['a', 'b'], groups)).toEqual([
      { shard: '1', from: 'a', to: 'b', contacts: 10, events: 90 },
    ]);
  });

  it('plans nothing on the spread it leaves, so a second run moves nothing', () => {
    const groups = groupsOn('a', [
      [30, 300],
      [20, 200],
      [10, 100],
      [5, 5],
    ]);
    const moves = planMoves(['a', 'b'], groups);
    expect(moves.length).toBeGreaterThan(0);
    const moved = groups.map((g) => ({
      ...g,
      worker: moves.find((m) => m.shard === g.shard)?.to ?? g.worker,
    }));
    expect(planMoves(['a', 'b'], moved)).toEqual([]);
  });

  it('fills a worker that holds nothing yet, as after adding one', () => {
    const groups = ['1', '2', '3', '4', '5', '6'].map((s, i) => group(s, i % 2 ? 'a' : 'b', 10, 10));
    const moves = planMoves(['a', 'b', 'c'], groups);
    expect(moves.map((m) => m.to)).toEqual(['c', 'c']);
    expect(new Set(moves.map((m) => m.from))).toEqual(new Set(['a', 'b']));
  });

  it('leaves a group that would only swap which worker is fuller', () => {
    expect(planMoves(['a', 'b'], [group('1', 'a', 10, 10)])).toEqual([]);
    expect(planMoves(['a'], [group('1', 'a', 10, 10)])).toEqual([]);
  });
});

describe('spreadOf', () => {
  it('gives each worker its rows and the worst distance from an even share, per kind', () => {
    const spread = spreadOf(['a', 'b', 'c'], [group('1', 'a', 60, 10), group('2', 'b', 40, 10)]);
    expect(spread).toEqual({
      workers: [
        { worker: 'a', contacts: 60, events: 10 },
        { worker: 'b', contacts: 40, events: 10 },
        { worker: 'c', contacts: 0, events: 0 },
      ],
      contactsFromEven: 100,
      eventsFromEven: 100,
    });
    expect(spreadOf(['a', 'b'], [group('1', 'a', 55, 0), group('2', 'b', 45, 0)])).toMatchObject({
      contactsFromEven: 10,
      eventsFromEven: 0,
    });
  });
});
