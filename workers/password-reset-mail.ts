import type { Context } from '../src/domain/context.js';
import type { JobPayloads } from '../src/jobs/jobs.js';
import { sendPasswordResetMail } from '../src/domain/identity/password-reset.js';

/** Mails a one-time password link to the account of an address, if any; a send the SMTP server refused is retried. */
export async function sendPasswordResetMailJob(ctx: Context, payload: JobPayloads['send-password-reset-mail']): Promise<void> {
  await sendPasswordResetMail(ctx, payload.email);
}
