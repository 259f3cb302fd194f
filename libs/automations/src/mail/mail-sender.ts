import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { createTransport, type Transporter } from 'nodemailer';
import type { AppConfigService } from '@app/core';
import { DeliveryError } from '../worker/webhook-delivery';
import { DevMailbox } from './dev-mailbox';

/** One email ready to go: rendered parts and the headers it carries. */
export interface OutgoingMail {
  to: string;
  /** `<…@…>`: stable across the retries of one run, so a receiver sees a repeat as the same message. */
  messageId: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

export const SMTP_URL_MISSING = 'email is not sent: SMTP_URL is not set (required in production)';

export const SECRET_KEY_MISSING =
  'email is not sent: AUTOMATION_SECRET_KEY is not set (it signs the unsubscribe and tracking links; required in production)';

/** Why email cannot be sent at all (production without SMTP_URL or the signing key), or null when it can. */
export function emailUnavailableReason(env: AppConfigService): string | null {
  if (env.get('NODE_ENV', { infer: true }) !== 'production') return null;
  if (!env.get('SMTP_URL', { infer: true })) return SMTP_URL_MISSING;
  return env.get('AUTOMATION_SECRET_KEY', { infer: true }) ? null : SECRET_KEY_MISSING;
}

/**
 * Sends email over SMTP with nodemailer's pooled transport: to SMTP_URL, or (development and
 * tests without SMTP_URL) to the catch-all mailbox it starts on first use. Signs with DKIM when
 * configured. Failures come back as DeliveryError, permanent for a 5xx answer.
 */
@Injectable()
export class MailSender implements OnApplicationShutdown {
  private readonly logger = new Logger(MailSender.name);
  private readonly smtpUrl: string | undefined;
  /** Why email cannot be sent at all, or null when it can. */
  readonly unavailableReason: string | null;
  private readonly dataDir: string;
  private readonly timeoutMs: number;
  private readonly maxConnections: number;
  readonly from: string;
  private readonly dkim: { domainName: string; keySelector: string; privateKey: string } | undefined;
  private transport: Promise<Transporter> | undefined;
  private mailbox: DevMailbox | undefined;

  constructor(@Inject(ConfigService) env: AppConfigService) {
    this.smtpUrl = env.get('SMTP_URL', { infer: true });
    this.unavailableReason = emailUnavailableReason(env);
    this.dataDir = env.get('DATA_DIR', { infer: true });
    this.timeoutMs = env.get('AUTOMATION_WEBHOOK_TIMEOUT_MS', { infer: true });
    this.maxConnections = env.get('SMTP_MAX_CONNECTIONS', { infer: true });
    this.from = env.get('MAIL_FROM', { infer: true }) ?? 'Funnel CRM <no-reply@localhost>';
    const privateKey = env.get('DKIM_PRIVATE_KEY', { infer: true });
    const domainName = env.get('DKIM_DOMAIN', { infer: true });
    const keySelector = env.get('DKIM_SELECTOR', { infer: true });
    this.dkim =
      privateKey && domainName && keySelector
        ? { domainName, keySelector, privateKey: privateKey.replace(/\\n/g, '\n') }
        : undefined;
  }

  /** The domain of MAIL_FROM: the right-hand side of Message-IDs and the unsubscribe mailbox. */
  get fromDomain(): string {
    return /@([^>\s]+)>?\s*$/.exec(this.from)?.[1] ?? 'localhost';
  }

  /** The bare address of MAIL_FROM (for the mailto unsubscribe). */
  get fromAddress(): string {
    return /<([^>]+)>/.exec(this.from)?.[1] ?? this.from;
  }

  /** Resolves with the server's answer to the message once it accepted it. */
  async send(mail: OutgoingMail): Promise<string> {
    const reason = this.unavailableReason;
    if (reason) throw new DeliveryError(reason, undefined, true);
    const transport = await this.transporter();
    try {
      const info = (await transport.sendMail({
        from: this.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: mail.messageId,
        headers: mail.headers,
      })) as { response?: string };
      return info.response ?? '';
    } catch (error) {
      throw smtpDeliveryError(error as SmtpError, this.timeoutMs);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    const transport = this.transport;
    this.transport = undefined;
    if (transport) (await transport.catch(() => undefined))?.close();
    await this.mailbox?.close();
  }

  private transporter(): Promise<Transporter> {
    this.transport ??= this.openTransport().catch((error: Error) => {
      this.transport = undefined;
      throw new DeliveryError(`the development mailbox could not start: ${error.message}`);
    });
    return this.transport;
  }

  private async openTransport(): Promise<Transporter> {
    const timeouts = {
      connectionTimeout: this.timeoutMs,
      greetingTimeout: this.timeoutMs,
      socketTimeout: this.timeoutMs,
    };
    const common = { pool: true, maxConnections: this.maxConnections, ...timeouts, dkim: this.dkim };
    // In the options, not beside them: a second argument would be message defaults, and the
    // transport would open a connection per message instead of pooling.
    if (this.smtpUrl) return createTransport({ url: this.smtpUrl, ...common });
    this.mailbox = await DevMailbox.start(this.dataDir);
    this.logger.log(
      `no SMTP_URL: email goes to the development mailbox (smtp://127.0.0.1:${this.mailbox.port}, read it with "admin mail list")`,
    );
    return createTransport({
      host: '127.0.0.1',
      port: this.mailbox.port,
      secure: false,
      ignoreTLS: true,
      ...common,
    });
  }
}

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
}

/**
 * A 5xx answer is permanent (the server refused this message for good); a 4xx answer, a refused
 * or dropped connection and a timeout are temporary and retried. The server's answer is kept,
 * the credentials in SMTP_URL never are (nodemailer's messages do not carry them).
 */
export function smtpDeliveryError(error: SmtpError, timeoutMs: number): DeliveryError {
  const answer = (error.response ?? '').replace(/\s+/g, ' ').trim().slice(0, 300);
  if (error.responseCode) {
    const permanent = error.responseCode >= 500 && error.responseCode < 600;
    return new DeliveryError(`SMTP ${error.responseCode}: ${answer || error.message}`, undefined, permanent);
  }
  if (error.code === 'ETIMEDOUT') return new DeliveryError(`SMTP timed out after ${timeoutMs} ms`);
  const cause = /\b(E[A-Z]{4,})\b/.exec(error.message)?.[1] ?? error.code ?? 'error';
  return new DeliveryError(`SMTP connection failed (${cause})`);
}
