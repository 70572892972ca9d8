import type { PrismaClient } from '@/lib/generated/prisma/client';
import { needsReseal, open, seal, type KeyRing } from './secretBox';

const BATCH = 500;

/**
 * Re-seals every stored secret that an older master key sealed, so that key can
 * then be dropped from MASTER_KEYS_PREVIOUS. Safe to re-run; returns how many changed.
 */
export async function resealSecrets(prisma: PrismaClient, ring: KeyRing): Promise<{ invoices: number; merchants: number; users: number }> {
  const counts = { invoices: 0, merchants: 0, users: 0 };
  for (let cursor = 0; ; ) {
    // Only invoices from before migration 0041 hold a sealed key; newer ones have none.
    const rows = await prisma.invoice.findMany({ where: { id: { gt: cursor }, privateKeyEnc: { not: null } }, orderBy: { id: 'asc' }, take: BATCH, select: { id: true, privateKeyEnc: true } });
    if (rows.length === 0) break;
    for (const row of rows) {
      const sealed = row.privateKeyEnc;
      if (sealed === null || !needsReseal(ring, sealed)) continue;
      await prisma.invoice.update({ where: { id: row.id }, data: { privateKeyEnc: seal(ring, open(ring, sealed)) } });
      counts.invoices++;
    }
    cursor = rows[rows.length - 1]?.id ?? cursor;
  }
  const merchants = await prisma.merchant.findMany({ select: { id: true, webhookSecretEnc: true } });
  for (const m of merchants) {
    // The webhook secret.
    if (!needsReseal(ring, m.webhookSecretEnc)) continue;
    await prisma.merchant.update({ where: { id: m.id }, data: { webhookSecretEnc: seal(ring, open(ring, m.webhookSecretEnc)) } });
    counts.merchants++;
  }
  // The authenticator secret of two-factor sign-in where one is set (issue 40): a user's since migration 0101.
  const users = await prisma.user.findMany({ where: { totpSecretEnc: { not: null } }, select: { id: true, totpSecretEnc: true } });
  for (const u of users) {
    if (u.totpSecretEnc === null || !needsReseal(ring, u.totpSecretEnc)) continue;
    await prisma.user.update({ where: { id: u.id }, data: { totpSecretEnc: seal(ring, open(ring, u.totpSecretEnc)) } });
    counts.users++;
  }
  return counts;
}
