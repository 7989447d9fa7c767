/**
 * A real SMTP server on a free loopback port (smtp-server), which wants a user name and password and keeps every
 * message it takes, parsed by mailparser: what Quire's mailer talks to in the tests. Plain SMTP (no STARTTLS), as
 * a loopback server needs no TLS.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { waitFor } from './wait.js';

export interface TestSmtpServer {
  /** `smtp://USER:PASSWORD@127.0.0.1:PORT` */
  url: string;
  password: string;
  messages: ParsedMail[];
  /** Waits for a message to `to` that arrived after `after` messages (default: any). */
  nextMessageTo(to: string, after?: number): Promise<ParsedMail>;
  close(): Promise<void>;
}

export async function startSmtpServer(user = 'quire', password = 'smtp p@ss:word/secret'): Promise<TestSmtpServer> {
  const messages: ParsedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: false,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) callback(null, { user });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          messages.push(parsed);
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  const recipients = (mail: ParsedMail) => (Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : []).flatMap((to) => to.value.map((address) => address.address));
  return {
    url: `smtp://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    password,
    messages,
    nextMessageTo: (to, after = 0) =>
      waitFor(() => messages.slice(after).find((mail) => recipients(mail).includes(to)), { what: `a mail to ${to}` }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
