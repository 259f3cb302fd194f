import { normalizeIp } from '@nestjs/throttler';
import type { IncomingHttpHeaders } from 'node:http';
import type { Request } from 'express';
import { isbot } from 'isbot';
import type { Device } from '@app/metrics';

/** What the public routes read of a browser's request; the body aside. */
export interface BrowserRequest {
  origin: string | undefined;
  address: string;
  userAgent: string;
  /** `Sec-GPC: 1` or `DNT: 1`: the visitor asked not to be followed (docs/CAPTURING.md). */
  optedOut: boolean;
  /** A crawler, a monitor or a headless browser by its user agent (or none at all). */
  bot: boolean;
}

const header = (headers: IncomingHttpHeaders, name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

// A page's requests repeat a few user agents: each is matched against isbot's pattern once.
const BOT_VERDICTS = new Map<string, boolean>();
const MAX_BOT_VERDICTS = 1000;

function isBot(userAgent: string): boolean {
  let bot = BOT_VERDICTS.get(userAgent);
  if (bot === undefined) {
    bot = !userAgent || isbot(userAgent);
    // The oldest goes first once full (a Map keeps insertion order).
    if (BOT_VERDICTS.size >= MAX_BOT_VERDICTS)
      BOT_VERDICTS.delete(BOT_VERDICTS.keys().next().value as string);
    BOT_VERDICTS.set(userAgent, bot);
  }
  return bot;
}

export function browserRequest(req: Request): BrowserRequest {
  return browserOf(req.headers, req.ip ?? req.socket.remoteAddress);
}

/** The browser of a request's headers and client address (as Express's `req.ip` tells it). */
export function browserOf(headers: IncomingHttpHeaders, address: string | undefined): BrowserRequest {
  const userAgent = header(headers, 'user-agent')?.slice(0, 1000) ?? '';
  return {
    origin: header(headers, 'origin'),
    address: normalizeIp(address ?? 'unknown'),
    userAgent,
    optedOut: header(headers, 'sec-gpc') === '1' || header(headers, 'dnt') === '1',
    bot: isBot(userAgent),
  };
}

/** The device class of a user agent, for a session start that names none. */
export function deviceOf(userAgent: string): Device {
  if (/iPad|Tablet|PlayBook|Silk|Android(?!.*Mobile)/i.test(userAgent)) return 'tablet';
  if (/Mobi|iPhone|iPod|Android|Windows Phone/i.test(userAgent)) return 'mobile';
  if (/Windows NT|Macintosh|X11|Linux|CrOS/i.test(userAgent)) return 'desktop';
  return 'other';
}
