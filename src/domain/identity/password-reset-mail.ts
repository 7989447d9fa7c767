/**
 * The mail that carries a one-time password link: plain text, and the same words as simple HTML (no images, no
 * tracking, no remote content). Everything it quotes is escaped in the HTML part.
 */
import type { MailMessage } from '../../store/mail/smtp-mailer.js';

export interface PasswordResetMailInput {
  to: string;
  /** The instance's public URL. */
  instanceUrl: string;
  /** The one-time link that sets the password. */
  link: string;
  expiresAt: string;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** `2026-11-30T16:12:37.000Z` as `2026-11-30 16:12 UTC`: readable, and the same in every time zone. */
const readableTime = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

export function passwordResetMail(input: PasswordResetMailInput): MailMessage {
  const until = readableTime(input.expiresAt);
  const paragraphs = [
    `Someone, hopefully you, asked to set a new password for the Quire account ${input.to} at ${input.instanceUrl}.`,
    `The link below sets it. It works once, until ${until}:`,
  ];
  const closing = 'If you did not ask for this, ignore this mail: the password stays as it is.';
  const text = [...paragraphs, input.link, closing].join('\n\n') + '\n';
  const html = [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif; line-height: 1.5">',
    ...paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    `<p><a href="${escapeHtml(input.link)}">Set your password</a></p>`,
    `<p style="word-break: break-all">${escapeHtml(input.link)}</p>`,
    `<p>${escapeHtml(closing)}</p>`,
    '</body></html>',
  ].join('\n');
  return { to: input.to, subject: 'Set your Quire password', text, html };
}
