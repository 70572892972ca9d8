import nodemailer from 'nodemailer';
import { config, type Config } from '@/lib/config';

/** SMTP_URL and MAIL_FROM (web section of lib/config.ts); a test passes its own. */
export type MailSettings = Pick<Config, 'SMTP_URL' | 'MAIL_FROM'>;

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/**
 * Sends an e-mail through SMTP_URL (`smtp://user:pass@host:587`, or `smtps://`
 * for TLS from the start) from MAIL_FROM. Without SMTP_URL it does nothing and
 * says so (returns false): a self-hosted install need not run a mail server.
 * A failure is logged (never the URL, which holds the SMTP password) and does
 * not undo what the mail reports.
 */
export async function sendMail(mail: Mail, settings: MailSettings = config()): Promise<boolean> {
  const url = settings.SMTP_URL;
  if (!url) return false;
  try {
    const transport = nodemailer.createTransport(url);
    await transport.sendMail({ from: settings.MAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text });
    return true;
  } catch (err) {
    console.error(`mail: could not send "${mail.subject}": ${(err as Error).message}`);
    return false;
  }
}
