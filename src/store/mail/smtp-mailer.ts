/**
 * Sending mail through the SMTP server of QUIRE_SMTP_URL (nodemailer). The URL carries the server's credentials:
 * nothing this module logs or throws quotes it whole, only its scheme, host and port. Every send is bounded in time,
 * so that a server that stops answering fails the send (and its job is retried) rather than hold it forever.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type { MailSettings } from '../../../config/index.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** What the domain sends mail through. */
export interface Mailer {
  /** The server without its credentials (`smtp://mail.example.com:587`), for logs. */
  readonly server: string;
  /** Resolves once the server took the message; rejects with a message that names no credential. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** A silent server fails the connection, its greeting or any later answer after this long; a whole send, after SEND_MS. */
const STEP_MS = 10_000;
const SEND_MS = 30_000;

/** `url` without its user and password. */
function serverOf(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

export class SmtpMailer implements Mailer {
  readonly server: string;
  private readonly transport: Transporter;
  /** Parts of the URL that must never reach a log line, should the library quote them in an error. */
  private readonly secrets: string[];
  private readonly sendMs: number;

  constructor(private readonly settings: MailSettings, timeouts: { stepMs?: number; sendMs?: number } = {}) {
    const url = new URL(settings.smtpUrl);
    this.server = serverOf(url);
    this.secrets = [settings.smtpUrl, url.password, decodeURIComponent(url.password)].filter((secret) => secret.length > 0);
    this.sendMs = timeouts.sendMs ?? SEND_MS;
    const step = timeouts.stepMs ?? STEP_MS;
    this.transport = nodemailer.createTransport({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
      secure: url.protocol === 'smtps:',
      ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
      connectionTimeout: step,
      greetingTimeout: step,
      socketTimeout: step,
      // The library's own logging stays off: it would write the conversation, credentials included, to stdout.
      logger: false,
      debug: false,
    });
  }

  async send(message: MailMessage): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.sendMs / 1000} s`)), this.sendMs);
    });
    try {
      await Promise.race([this.transport.sendMail({ from: this.settings.from, ...message }), deadline]);
    } catch (error) {
      // eslint-disable-next-line preserve-caught-error -- the library's error may quote the server's conversation; only its cleaned message goes on.
      throw new Error(`mail: ${this.server} did not take the message to ${message.to}: ${this.withoutSecrets(error instanceof Error ? error.message : String(error))}`);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    this.transport.close();
  }

  private withoutSecrets(text: string): string {
    return this.secrets.reduce((clean, secret) => clean.split(secret).join('[redacted]'), text);
  }
}
