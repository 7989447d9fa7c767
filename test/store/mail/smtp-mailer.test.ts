/** The mailer against real SMTP servers on loopback: one that takes mail, one that refuses the login, one that never speaks. */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmtpMailer } from '../../../src/store/mail/smtp-mailer.js';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp-server.js';

const message = { to: 'ada@example.com', subject: 'Hello', text: 'Hello, Ada.\n', html: '<p>Hello, Ada.</p>' };

describe('SmtpMailer', () => {
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(async () => smtp?.close());

  it('sends through the server with its credentials, and names the server without them', async () => {
    const mailer = new SmtpMailer({ smtpUrl: smtp.url, from: 'Quire <quire@example.com>' });
    try {
      expect(mailer.server).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
      await mailer.send(message);
      const mail = await smtp.nextMessageTo('ada@example.com');
      expect(mail.subject).toBe('Hello');
      expect(mail.from?.value[0].address).toBe('quire@example.com');
    } finally {
      mailer.close();
    }
  });

  it('fails a refused login with a message that quotes no credential', async () => {
    const wrong = smtp.url.replace(encodeURIComponent(smtp.password), 'wrong%20secret%2Fvalue');
    const mailer = new SmtpMailer({ smtpUrl: wrong, from: 'quire@example.com' });
    try {
      const failure = await mailer.send(message).then(
        () => undefined,
        (error: Error) => error.message,
      );
      expect(failure).toMatch(/^mail: smtp:\/\/127\.0\.0\.1:\d+ did not take the message to ada@example\.com: /);
      expect(failure).not.toContain('wrong secret/value');
      expect(failure).not.toContain('wrong%20secret');
    } finally {
      mailer.close();
    }
  });

  it('gives up on a server that never answers', async () => {
    const sockets = new Set<net.Socket>();
    // Accepts connections and never greets.
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const mailer = new SmtpMailer({ smtpUrl: `smtp://quire:pw@127.0.0.1:${port}`, from: 'quire@example.com' }, { stepMs: 300, sendMs: 5_000 });
    try {
      await expect(mailer.send(message)).rejects.toThrow(/did not take the message.*(timeout|Greeting never received)/i);
    } finally {
      mailer.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
