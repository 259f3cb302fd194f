import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { blockStretches, inStretch, OrderedStretches } from './contacts-export.parallel';

describe(blockStretches.name, () => {
  it('cuts the span into consecutive stretches from block 0 to the end, at least four', () => {
    const stretches = blockStretches(100, 199, 1_000);
    expect(stretches).toEqual([
      { from: 0, to: 125 },
      { from: 125, to: 150 },
      { from: 150, to: 175 },
      { from: 175, to: undefined },
    ]);
    expect(inStretch(stretches[0])).toBe("c.ctid >= '(0,0)'::tid AND c.ctid < '(125,0)'::tid");
    expect(inStretch(stretches[3])).toBe("c.ctid >= '(175,0)'::tid");
  });

  it('aims at 5,000 rows a stretch, never more stretches than blocks', () => {
    expect(blockStretches(0, 9_999, 1_000_000)).toHaveLength(200);
    expect(blockStretches(7, 8, 1_000_000)).toEqual([
      { from: 0, to: 8 },
      { from: 8, to: undefined },
    ]);
  });
});

describe(OrderedStretches.name, () => {
  /** A stretch whose chunks arrive after `delayMs` each. */
  const stretch = (chunks: string[], delayMs: number) =>
    Readable.from(
      (async function* () {
        for (const chunk of chunks) {
          await sleep(delayMs);
          yield Buffer.from(chunk);
        }
      })(),
    );

  it('sends the stretches in order whichever reader ends first, and ends each reader once', async () => {
    const contents = [['a1', 'a2'], ['b1'], ['c1', 'c2', 'c3'], ['d1']];
    const opened: [number, number][] = [];
    const done: number[] = [];
    const body = new OrderedStretches(
      contents.length,
      2,
      (reader, i) => {
        opened.push([reader, i]);
        // The second reader is faster: its stretches are read ahead of the first's.
        return stretch(contents[i], reader === 0 ? 15 : 1);
      },
      (reader) => done.push(reader),
    );
    await body.started;
    let text = '';
    for await (const chunk of body) text += String(chunk);
    expect(text).toBe('a1a2b1c1c2c3d1');
    expect(opened).toEqual([
      [0, 0],
      [1, 1],
      [1, 3],
      [0, 2],
    ]);
    expect(done.sort()).toEqual([0, 1]);
  });

  it('fails the body and `started` when a stretch fails', async () => {
    const body = new OrderedStretches(
      2,
      2,
      (_, i) =>
        i === 0
          ? new Readable({
              read() {
                this.destroy(new Error('connection lost'));
              },
            })
          : stretch(['b'], 1),
      () => undefined,
    );
    const failure = new Promise((resolve) => body.on('error', resolve));
    await expect(body.started).rejects.toThrow('connection lost');
    expect(await failure).toEqual(new Error('connection lost'));
    expect(body.destroyed).toBe(true);
  });
});
