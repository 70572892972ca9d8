import type { MailOutbox, Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import { queryRows, sql } from '@/lib/db/sql';
import { config } from '@/lib/config';
import { backoffMs, type Backoff } from '@/lib/backoff';
import { deliverMail, type Mail, type MailSettings } from './mail';

/** Sends of one mail before it is given up (FAILED, with the server's last reason). */
export const MAIL_MAX_ATTEMPTS = 5;
/**
 * The wait before the second send of a refused mail; each next wait doubles (1, 2, 4, 8 min: the
 * cap, 8 min, is the fourth wait, the last MAIL_MAX_ATTEMPTS allows). No jitter: one mail at a time.
 */
const RETRY: Backoff = { baseMs: 60_000, capMs: 8 * 60_000, jitter: 0 };
/**
 * A mail claimed this long ago and still SENDING belonged to a worker that died while sending:
 * it is sent again (more than the transport's own timeouts, lib/notify/mail.ts, so a slow but
 * live send is never doubled). A worker killed after the server accepted the mail and before the
 * row was marked sends it twice: a duplicate e-mail is better than a missing one.
 */
const STALE_CLAIM_SECONDS = 300;

/**
 * Queues an e-mail to a merchant inside the caller's transaction, so it is stored if and only if
 * what it reports is; the worker sends it (`sendNextMail`). Only where SMTP is configured: without
 * SMTP_URL nothing is stored, and turning SMTP on later does not send old news. Returns whether
 * it was queued. The event key is unique: one mail per event.
 */
export async function queueMail(tx: Prisma.TransactionClient, merchantId: number, eventKey: string, mail: Mail, settings: MailSettings = config()): Promise<boolean> {
  if (!settings.SMTP_URL) return false;
  const { count } = await tx.mailOutbox.createMany({
    data: [{ merchantId, eventKey, toAddress: mail.to, subject: mail.subject, body: mail.text }],
    skipDuplicates: true,
  });
  return count === 1;
}

/** Claims the oldest mail that is due (or was left SENDING by a dead worker); one worker each. */
async function claim(prisma: PrismaClient): Promise<MailOutbox | null> {
  const rows = await queryRows<{ id: number }>(prisma, sql`
    UPDATE mail_outbox SET status = 'SENDING', attempts = attempts + 1, claimed_at = now()
    WHERE id = (
      SELECT id FROM mail_outbox
      WHERE (status = 'PENDING' AND (not_before IS NULL OR not_before <= now()))
         OR (status = 'SENDING' AND claimed_at < now() - ${STALE_CLAIM_SECONDS} * interval '1 second')
      ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED
    )
    RETURNING id`);
  const id = rows[0]?.id;
  return id === undefined ? null : prisma.mailOutbox.findUnique({ where: { id } });
}

/**
 * The worker's mail job: sends one queued e-mail through SMTP_URL and records the outcome. A
 * refusal is tried again after a backoff, up to MAIL_MAX_ATTEMPTS sends, then kept as FAILED
 * with the reason (and logged). Returns false when nothing was due.
 */
export async function sendNextMail(prisma: PrismaClient, settings: MailSettings = config()): Promise<boolean> {
  const mail = await claim(prisma);
  if (!mail) return false;
  const outcome = await deliverMail({ to: mail.toAddress, subject: mail.subject, text: mail.body }, settings);
  if (outcome.sent) {
    await prisma.mailOutbox.update({ where: { id: mail.id }, data: { status: 'SENT', sentAt: new Date(), error: null } });
    return true;
  }
  const error = outcome.error ?? 'SMTP_URL is not set';
  const last = mail.attempts >= MAIL_MAX_ATTEMPTS;
  await prisma.mailOutbox.update({
    where: { id: mail.id },
    data: last ? { status: 'FAILED', error } : { status: 'PENDING', error, notBefore: new Date(Date.now() + backoffMs(RETRY, mail.attempts - 1)) },
  });
  console.error(`mail ${mail.id} ("${mail.subject}") not sent, attempt ${mail.attempts} of ${MAIL_MAX_ATTEMPTS}${last ? ', given up' : ''}: ${error}`);
  return true;
}
