import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One message of the development mailbox, as `admin mail list` shows it. */
export interface MailboxEntry {
  id: string;
  receivedAt: string;
  from: string;
  to: string;
  subject: string;
  messageId: string | null;
}

export const mailboxDirectory = (dataDir: string): string => join(dataDir, 'mailbox');

/**
 * The catch-all mailbox of development: an SMTP server on loopback that accepts every message and
 * keeps it as a `.eml` file under DATA_DIR/mailbox, where `admin mail list|show` reads it. Never
 * started in production (email there needs SMTP_URL).
 */
export class DevMailbox {
  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
  ) {}

  static async start(dataDir: string): Promise<DevMailbox> {
    const directory = mailboxDirectory(dataDir);
    await mkdir(directory, { recursive: true });
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, _session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          // Sortable by arrival: the time first, then a random part against collisions.
          const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`;
          writeFile(join(directory, name), Buffer.concat(chunks)).then(() => callback(), callback);
        });
      },
    });
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve((server.server.address() as { port: number }).port));
    });
    return new DevMailbox(server, port);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The mailbox's messages, newest first. */
export async function listMailbox(dataDir: string, limit = 50): Promise<MailboxEntry[]> {
  const names = await mailboxFiles(dataDir);
  const newest = names.slice(-limit).reverse();
  return Promise.all(
    newest.map(async (name) =>
      summary(name, await simpleParser(await readFile(join(mailboxDirectory(dataDir), name)))),
    ),
  );
}

/** One message of the mailbox with its parts, or null when there is none of that id. */
export async function readMailboxMessage(
  dataDir: string,
  id: string,
): Promise<(MailboxEntry & { listUnsubscribe: string | null; text: string; html: string }) | null> {
  const names = await mailboxFiles(dataDir);
  const name = names.find((n) => n === `${id}.eml`);
  if (!name) return null;
  const mail = await simpleParser(await readFile(join(mailboxDirectory(dataDir), name)));
  return {
    ...summary(name, mail),
    listUnsubscribe:
      mail.headerLines
        .find((h) => h.key === 'list-unsubscribe')
        ?.line.slice(17)
        .trim() ?? null,
    text: mail.text ?? '',
    html: typeof mail.html === 'string' ? mail.html : '',
  };
}

function summary(name: string, mail: ParsedMail): MailboxEntry {
  return {
    id: name.replace(/\.eml$/, ''),
    receivedAt: mail.date?.toISOString() ?? '',
    from: mail.from?.text ?? '',
    to: [mail.to ?? []]
      .flat()
      .map((a) => a.text)
      .join(', '),
    subject: mail.subject ?? '',
    messageId: mail.messageId ?? null,
  };
}

async function mailboxFiles(dataDir: string): Promise<string[]> {
  try {
    return (await readdir(mailboxDirectory(dataDir))).filter((n) => n.endsWith('.eml')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
