import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { ValidationError } from '@app/core';
import { EVENT_TYPES, EventRetention, EventsService, parseEventBatch, TrackedEvent } from '@app/metrics';
import { BrowserRequest, deviceOf } from './browser-request';
import { CollectionDoor } from './collection-door';
import { VisitorIds } from './visitor-ids';

/** The event types a page may send; messages are the service's own, conversions to a contact too. */
export const BROWSER_EVENT_TYPES: readonly string[] = EVENT_TYPES.filter(
  (type) => !type.startsWith('message_'),
);
/** Events per request: a tracker sends a few at a time. */
export const MAX_BROWSER_EVENTS = 50;
/** The body of a public route, JSON or text/plain, at most this many bytes. */
export const MAX_BROWSER_BODY_BYTES = 16 * 1024;

/** A body sent as text/plain (a simple request, without preflight) holds the JSON as text. */
export function browserBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  if (Buffer.byteLength(body) > MAX_BROWSER_BODY_BYTES)
    throw new ValidationError(`the body must be at most ${MAX_BROWSER_BODY_BYTES} bytes`);
  try {
    return JSON.parse(body);
  } catch {
    throw new ValidationError('the body must be JSON');
  }
}

// Events answered but not yet stored, per process: past this, a request waits for the writes.
const MAX_UNSTORED_EVENTS = 20_000;

/**
 * The tracker's events, from the funnel's allowed origins: what a browser may not decide is
 * decided here (the visitor id, the device when not given; no message events, no contact ids),
 * then the events API's rules check them (parseEventBatch, the kept months) and its ingestion
 * stores them (EventsService.record). A page waits for no write: it is answered once its events
 * are checked; the checked events of a funnel's requests of one event-loop turn are handed to
 * ingestion together, once, after the turn, while the writes stay under MAX_UNSTORED_EVENTS.
 * Shutdown hands over and waits for what is pending. A bot's events are dropped unseen.
 */
@Injectable()
export class CollectService implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(CollectService.name);
  private readonly writes = new Set<Promise<void>>();
  /** Checked events not yet handed to ingestion, per funnel, and the promise of their write. */
  private readonly pending = new Map<string, PendingWrite>();
  private handOverScheduled?: NodeJS.Immediate;
  /** The write holding each session's latest events, by `funnelId sessionId`, until it is done. */
  private readonly sessionWrites = new Map<string, Promise<void>>();
  private unstored = 0;

  constructor(
    private readonly door: CollectionDoor,
    private readonly visitors: VisitorIds,
    private readonly events: EventsService,
    private readonly retention: EventRetention,
  ) {}

  // Before the database closes: what was answered is written. Again once the server stopped
  // accepting, for the requests that were still in flight.
  async beforeApplicationShutdown(): Promise<void> {
    await this.settled();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.settled();
  }

  /** Once every event this process answered so far is written. */
  async settled(): Promise<void> {
    this.handOver();
    await Promise.allSettled([...this.writes]);
  }

  /** Once the session's events this process answered so far are written (a lead reads them). */
  async sessionWritten(funnelId: string, sessionId: string): Promise<void> {
    if (this.pending.has(funnelId)) this.handOver();
    await this.sessionWrites.get(`${funnelId} ${sessionId}`);
  }

  async collect(funnelId: string, browser: BrowserRequest, rawBody: unknown): Promise<void> {
    const funnel = await this.door.admit('collect', funnelId, browser);
    if (browser.bot) return;
    const body = browserBody(rawBody);
    const events = eventsOf(body);
    for (const [index, event] of events.entries()) {
      if (event.type === 'conversion' && event.contactId !== undefined)
        throw new ValidationError(`events[${index}].contactId cannot be sent from a page`);
      if (event.type !== 'session_start') continue;
      if (event.visitorId !== undefined)
        throw new ValidationError(`events[${index}].visitorId is set by the service`);
      // A visitor who asked not to be followed is known by the session alone.
      const parts =
        browser.optedOut || typeof event.sessionId !== 'string'
          ? [`session:${String(event.sessionId)}`]
          : [browser.address, browser.userAgent];
      event.visitorId = await this.visitors.visitorId(funnel.id, parts);
      event.device ??= deviceOf(browser.userAgent);
    }
    const checked = parseEventBatch(body);
    this.retention.assertKept(checked);
    await this.storeAfterAnswer(funnel.id, checked);
  }

  /**
   * Hands checked events to ingestion after this event-loop turn, with the other requests' of the
   * turn; resolves at once, unless the writes are behind (then once these events are written).
   */
  async storeAfterAnswer(funnelId: string, events: TrackedEvent[]): Promise<void> {
    this.unstored += events.length;
    let batch = this.pending.get(funnelId);
    if (!batch) this.pending.set(funnelId, (batch = pendingWrite()));
    batch.events.push(...events);
    this.handOverScheduled ??= setImmediate(() => this.handOver());
    if (this.unstored > MAX_UNSTORED_EVENTS) await batch.written;
  }

  /** Hands each funnel's pending events to ingestion in one call. */
  private handOver(): void {
    if (this.handOverScheduled) clearImmediate(this.handOverScheduled);
    this.handOverScheduled = undefined;
    for (const [funnelId, batch] of this.pending) batch.handedOver(this.store(funnelId, batch.events));
    this.pending.clear();
  }

  private store(funnelId: string, events: TrackedEvent[]): Promise<void> {
    const sessions = new Set(events.map((e) => `${funnelId} ${e.sessionId}`));
    const write = this.events
      .record(funnelId, events)
      .then(
        () => undefined,
        (error: Error) =>
          this.logger.warn(
            `${events.length} answered events of funnel ${funnelId} not stored: ${error.message}`,
          ),
      )
      .finally(() => {
        this.unstored -= events.length;
        this.writes.delete(write);
        for (const key of sessions) if (this.sessionWrites.get(key) === write) this.sessionWrites.delete(key);
      });
    this.writes.add(write);
    for (const key of sessions) this.sessionWrites.set(key, write);
    return write;
  }
}

/** A funnel's events waiting for the end of the turn; `written` settles once their write is done. */
interface PendingWrite {
  events: TrackedEvent[];
  written: Promise<void>;
  handedOver(write: Promise<void>): void;
}

function pendingWrite(): PendingWrite {
  let handedOver!: (write: Promise<void>) => void;
  const written = new Promise<void>((resolve) => (handedOver = resolve));
  return { events: [], written, handedOver };
}

/** The batch's events, refused as a whole when a page may not send one of them. */
function eventsOf(body: unknown): Record<string, unknown>[] {
  const events = (body as { events?: unknown } | null)?.events;
  if (!Array.isArray(events) || events.length > MAX_BROWSER_EVENTS)
    throw new ValidationError(`events must be an array of 1 to ${MAX_BROWSER_EVENTS} events`);
  const problems: string[] = [];
  events.forEach((event: unknown, index) => {
    const type = (event as { type?: unknown } | null)?.type;
    if (typeof event !== 'object' || event === null || Array.isArray(event))
      problems.push(`events[${index}] must be an object`);
    else if (typeof type === 'string' && !BROWSER_EVENT_TYPES.includes(type))
      problems.push(`events[${index}].type must be one of ${BROWSER_EVENT_TYPES.join(', ')}`);
  });
  if (problems.length) throw new ValidationError(problems[0], problems);
  return events as Record<string, unknown>[];
}
