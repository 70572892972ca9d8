import type { Prisma } from '@/lib/generated/prisma/client';

/**
 * The scanners' rows in `chain_cursors`: `main`, the newest final (solidified) block the scanner has
 * read (lib/payments/scan.ts), and `head`, the newest block the head scanner has read above it
 * (lib/payments/headScan.ts). Named here, low, because readers above the scanners need them too.
 */
export const SOLIDIFIED_CURSOR = 'main';
export const HEAD_CURSOR = 'head';

/** How far the worker has read the chain: the head block, and the newest final one. */
export interface ChainProgress {
  head: number;
  solidified: number;
}

/** How far the worker has read the chain: null before the scanner has started. */
export async function chainProgress(prisma: Pick<Prisma.TransactionClient, 'chainCursor'>): Promise<ChainProgress | null> {
  const cursors = await prisma.chainCursor.findMany({ where: { name: { in: [SOLIDIFIED_CURSOR, HEAD_CURSOR] } }, select: { name: true, blockNumber: true } });
  const solidified = cursors.find((c) => c.name === SOLIDIFIED_CURSOR)?.blockNumber;
  if (solidified === undefined) return null;
  return { solidified, head: cursors.find((c) => c.name === HEAD_CURSOR)?.blockNumber ?? solidified };
}
