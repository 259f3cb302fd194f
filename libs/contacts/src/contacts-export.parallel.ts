import { Readable } from 'node:stream';

/** Rows a stretch aims at: its output (a few MB) is what the stretch read ahead may hold. */
const STRETCH_ROWS = 5_000;
/** Output read ahead of the one being sent, at most (beyond it, the reading connection waits). */
const READ_AHEAD_BYTES = 4 * 1024 * 1024;

/** A stretch of the table by heap block, `[from, to)`; `to` undefined: to the end. */
export interface BlockStretch {
  from: number;
  to?: number;
}

/**
 * The export's blocks `[first, last]` cut into consecutive stretches of about STRETCH_ROWS rows
 * (at least four, so each connection reads several), in table order. The first starts at block
 * 0 and the last runs to the end: together they cover the table, whatever the span.
 */
export function blockStretches(first: number, last: number, rows: number): BlockStretch[] {
  const span = last - first + 1;
  const count = Math.min(span, Math.max(4, Math.ceil(rows / STRETCH_ROWS)));
  const bounds = Array.from({ length: count - 1 }, (_, i) => first + Math.round((span * (i + 1)) / count));
  return [0, ...bounds].map((from, i) => ({ from, to: bounds[i] }));
}

/** The condition on contact `c` that keeps the rows of `stretch`. */
export const inStretch = ({ from, to }: BlockStretch) =>
  `c.ctid >= '(${from},0)'::tid` + (to === undefined ? '' : ` AND c.ctid < '(${to},0)'::tid`);

/** One stretch's output: chunks read and not yet sent. */
interface Part {
  chunks: Buffer[];
  stream?: Readable;
  ended: boolean;
}

/**
 * The outputs of consecutive stretches as one body, in stretch order. Stretch `i` is read by
 * `readers[i % readers.length]`, each reader running its stretches one after the other: while
 * one stretch is sent, the next ones are read ahead, up to READ_AHEAD_BYTES in all. The stretch
 * being sent is read only as fast as the body is taken (backpressure), so memory stays bounded.
 */
export class OrderedStretches extends Readable {
  private readonly parts: Part[];
  private head = 0;
  private blocked = false;
  private readAhead = 0;
  /** Settles when the first stretch has output (or has ended), or on the first failure. */
  readonly started: Promise<void>;
  private start!: () => void;
  private fail!: (error: Error) => void;

  /**
   * @param open starts the COPY of stretch `index` on reader `reader`; the stream ends when the
   *   stretch has been read, and fails when its statement does.
   * @param done called once per reader when it has read its last stretch.
   */
  constructor(
    stretches: number,
    private readonly readers: number,
    private readonly open: (reader: number, index: number) => Readable,
    private readonly done: (reader: number) => void,
  ) {
    super();
    this.parts = Array.from({ length: stretches }, () => ({ chunks: [], ended: false }));
    this.started = new Promise((resolve, reject) => {
      this.start = resolve;
      this.fail = reject;
    });
    // Before the body has a reader, a failure is answered by the caller, which awaits `started`.
    this.started.catch(() => undefined);
    for (let reader = 0; reader < readers; reader++) this.next(reader, reader);
  }

  override _read(): void {
    this.blocked = false;
    this.update();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    for (const part of this.parts) part.stream?.destroy();
    callback(error);
  }

  /** Starts stretch `index` on `reader`, or tells that the reader is done. */
  private next(reader: number, index: number): void {
    if (this.destroyed) return;
    if (index >= this.parts.length) return this.done(reader);
    const part = this.parts[index];
    const stream = this.open(reader, index);
    part.stream = stream;
    stream.on('data', (chunk: Buffer) => {
      part.chunks.push(chunk);
      this.readAhead += chunk.length;
      if (index === 0) this.start();
      this.update();
    });
    stream.on('end', () => {
      part.ended = true;
      part.stream = undefined;
      if (index === 0) this.start();
      this.update();
      this.next(reader, index + this.readers);
    });
    stream.on('error', (error: Error) => {
      this.fail(error);
      this.destroy(error);
    });
  }

  /** Sends what the stretch in turn holds, moves on past ended ones, then paces the readers. */
  private update(): void {
    if (this.destroyed) return;
    while (!this.blocked && this.head < this.parts.length) {
      const part = this.parts[this.head];
      const chunk = part.chunks.shift();
      if (chunk) {
        this.readAhead -= chunk.length;
        if (!this.push(chunk)) this.blocked = true;
      } else if (part.ended) this.head++;
      else break;
    }
    if (this.head === this.parts.length) {
      this.push(null);
      return;
    }
    for (let i = this.head; i < this.parts.length; i++) {
      const stream = this.parts[i].stream;
      if (!stream) continue;
      const run = i === this.head ? !this.blocked : this.readAhead <= READ_AHEAD_BYTES;
      if (run && stream.isPaused()) stream.resume();
      else if (!run && !stream.isPaused()) stream.pause();
    }
  }
}
