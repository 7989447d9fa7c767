/**
 * Password reset by e-mail: anyone may ask for a one-time password link to be mailed to an address; the answer is the
 * same whether or not an account has that address, and the lookup and the sending happen in a job, so that neither
 * the answer nor its time tells. Requests are limited per address and per client, every one counted.
 */
import type { Context, OutgoingMail } from '../context.js';
import { InvalidArgument, NotFound, TooManyRequests } from '../errors.js';
import { findUserByEmail } from '../../store/sql/users.js';
import { createPasswordLink, type SessionClient } from './sessions.js';
import { isEmail } from './users.js';
import { passwordResetMail } from './password-reset-mail.js';
import type { SignInLimitRules } from './sign-in-limits.js';

/** Three mails per address and twenty requests per client in fifteen minutes: enough for a lost mail, not for a flood. */
export const PASSWORD_RESET_LIMITS: SignInLimitRules = { perEmail: 3, perAddress: 20, windowMs: 15 * 60 * 1000 };

function outgoingMail(ctx: Context): OutgoingMail {
  if (!ctx.mail) {
    throw new NotFound('password reset: this server sends no mail (QUIRE_SMTP_URL is not set); an administrator gives a link with `quire admin reset-password`');
  }
  return ctx.mail;
}

/** Whether this server mails password links (the sign-in page offers "Forgot your password?"). */
export function passwordResetByEmail(ctx: Context): boolean {
  return ctx.mail !== undefined;
}

/**
 * Asks for a one-time password link to be mailed to `email`: queues the job that looks the account up and mails it.
 * Returns the normalized address; the same outcome whether or not an account has it.
 */
export async function requestPasswordReset(ctx: Context, input: { email: string }, client: SessionClient): Promise<string> {
  outgoingMail(ctx);
  const email = input.email.trim().toLowerCase();
  if (!isEmail(email)) throw new InvalidArgument(`email: "${input.email}" is not an e-mail address`);
  const wait = await ctx.passwordResetLimits.attempt(email, client.address);
  if (wait > 0) throw new TooManyRequests(`email: too many password reset requests; try again in ${wait} seconds`, { retryAfterSeconds: wait });
  // Every request counts against its client, as a failed sign-in does: each may send a mail.
  await ctx.passwordResetLimits.failed(client.address);
  await ctx.jobs.enqueue({ name: 'send-password-reset-mail', payload: { email } });
  return email;
}

/**
 * The job: mails a one-time password link to the account of `email`, if there is one. A retried send makes another
 * link; the links of the sends that failed reached no one, and expire unused.
 */
export async function sendPasswordResetMail(ctx: Context, email: string): Promise<void> {
  const mail = outgoingMail(ctx);
  const user = await findUserByEmail(ctx.db, email);
  if (!user) return;
  const link = await createPasswordLink(ctx, user.id);
  await mail.mailer.send(passwordResetMail({ to: user.email, instanceUrl: mail.instanceUrl, link: mail.setPasswordLink(link.token), expiresAt: link.expiresAt }));
}
