import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { eventually } from './webhook-receiver';

export interface ReceivedMail {
  raw: Buffer;
  parsed: ParsedMail;
  recipients: string[];
}

/** An answer to a message: accept (null) or refuse it with an SMTP code and text. */
export type MailResponder = (raw: Buffer, index: number) => Promise<{ code: number; text: string } | null>;

/** A real SMTP server (the `smtp-server` package) on a loopback port, keeping what it accepted. */
export class SmtpReceiver {
  readonly received: ReceivedMail[] = [];
  /** Every DATA the server was offered, accepted or not. */
  offered = 0;
  respond: MailResponder = () => Promise.resolve(null);

  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
  ) {}

  static async start(): Promise<SmtpReceiver> {
    // The server's handler needs the receiver, which needs the listening server.
    const self: { receiver?: SmtpReceiver } = {};
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks);
          void self
            .receiver!.accept(
              raw,
              session.envelope.rcptTo.map((r) => r.address),
            )
            .then(
              () => callback(),
              (error: Error) => callback(error),
            );
        });
      },
    });
    const port = await new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.server.address() as { port: number }).port)),
    );
    self.receiver = new SmtpReceiver(server, port);
    return self.receiver;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  waitFor(count: number): Promise<ReceivedMail[]> {
    return eventually(async () => this.received.length >= count && this.received);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async accept(raw: Buffer, recipients: string[]): Promise<void> {
    const answer = await this.respond(raw, this.offered++);
    if (answer) throw Object.assign(new Error(answer.text), { responseCode: answer.code });
    this.received.push({ raw, parsed: await simpleParser(raw), recipients });
  }
}
