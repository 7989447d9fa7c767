/**
 * Sending mail through the SMTP server of QUIRE_SMTP_URL (nodemailer). The URL carries the server's credentials:
 * nothing this module logs or throws quotes it whole, only its scheme, host and port. Every send is bounded in time,
 * so that a server that stops answering fails the send (and its job is retried) rather than hold it forever.
 */
import type { Transporter } from 'nodemailer';
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
  /** Made at the first send: nodemailer is loaded then, not at every start of a server configured to send mail. */
  private transport: Promise<Transporter> | undefined;
  /** Parts of the URL that must never reach a log line, should the library quote them in an error. */
  private readonly secrets: string[];
  private readonly sendMs: number;
  private readonly stepMs: number;

  constructor(private readonly settings: MailSettings, timeouts: { stepMs?: number; sendMs?: number } = {}) {
    const url = new URL(settings.smtpUrl);
    this.server = serverOf(url);
    this.secrets = [settings.smtpUrl, url.password, decodeURIComponent(url.password)].filter((secret) => secret.length > 0);
    this.sendMs = timeouts.sendMs ?? SEND_MS;
    this.stepMs = timeouts.stepMs ?? STEP_MS;
  }

  private connect(): Promise<Transporter> {
    return (this.transport ??= import('nodemailer').then(({ default: nodemailer }) => this.createTransport(nodemailer.createTransport)));
  }

  private createTransport(create: (typeof import('nodemailer'))['default']['createTransport']): Transporter {
    const url = new URL(this.settings.smtpUrl);
    const step = this.stepMs;
    return create({
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
      await Promise.race([this.connect().then((transport) => transport.sendMail({ from: this.settings.from, ...message })), deadline]);
    } catch (error) {
      // eslint-disable-next-line preserve-caught-error -- the library's error may quote the server's conversation; only its cleaned message goes on.
      throw new Error(`mail: ${this.server} did not take the message to ${message.to}: ${this.withoutSecrets(error instanceof Error ? error.message : String(error))}`);
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    // A transport that never loaded has nothing to close; its failure was the send's to report.
    void this.transport?.then(
      (transport) => transport.close(),
      () => undefined,
    );
  }

  private withoutSecrets(text: string): string {
    return this.secrets.reduce((clean, secret) => clean.split(secret).join('[redacted]'), text);
  }
}
