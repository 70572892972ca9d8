import { config, type Config } from '@/lib/config';

/** SMTP_URL and MAIL_FROM (web section of lib/config.ts, which the worker reads too); a test passes its own. */
export type MailSettings = Pick<Config, 'SMTP_URL' | 'MAIL_FROM'>;

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** What an SMTP send came to: sent, not configured (no SMTP_URL), or refused with the server's reason. */
export type MailOutcome = { sent: true } | { sent: false; error: string | null };

// A server that accepts the connection and then says nothing must not hold a sender for
// nodemailer's defaults (two minutes to connect, ten of silence).
const TIMEOUTS = { connectionTimeout: 20_000, greetingTimeout: 20_000, socketTimeout: 60_000 };

/**
 * Sends an e-mail through SMTP_URL (`smtp://user:pass@host:587`, or `smtps://` for TLS from the
 * start) from MAIL_FROM. Without SMTP_URL it does nothing (`error: null`): a self-hosted install
 * need not run a mail server. A refusal is returned with the server's reason, never the URL (it
 * holds the SMTP password).
 */
export async function deliverMail(mail: Mail, settings: MailSettings = config()): Promise<MailOutcome> {
  const url = settings.SMTP_URL;
  if (!url) return { sent: false, error: null };
  try {
    // nodemailer is loaded at the first mail, not by every worker and web process as it starts, SMTP
    // set or not (about 70 ms of CPU a start, issue 41).
    const [{ default: nodemailer }, { default: SMTPTransport }] = await Promise.all([import('nodemailer'), import('nodemailer/lib/smtp-transport/index.js')]);
    // A transport built from the URL and the timeouts together (createTransport(url) takes no options).
    const transport = nodemailer.createTransport(new SMTPTransport({ url, ...TIMEOUTS }));
    await transport.sendMail({ from: settings.MAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text });
    return { sent: true };
  } catch (err) {
    return { sent: false, error: (err as Error).message };
  }
}

/**
 * Sends an e-mail at once, for mails that report what the caller just did (the wallet change):
 * true when sent. A failure is logged and does not undo what the mail reports.
 */
export async function sendMail(mail: Mail, settings: MailSettings = config()): Promise<boolean> {
  const outcome = await deliverMail(mail, settings);
  if (!outcome.sent && outcome.error !== null) console.error(`mail: could not send "${mail.subject}": ${outcome.error}`);
  return outcome.sent;
}
