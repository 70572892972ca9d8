import type { Prisma } from '@/lib/generated/prisma/client';

/**
 * The scanners' rows in `chain_cursors`: `main`, the newest final (solidified) block the scanner has
 * read (lib/payments/scan.ts), and `head`, the newest block the head scanner has read above it
 * (lib/payments/headScan.ts). Named here, low, because readers above the scanners need them too.
 */
export const SOLIDIFIED_CURSOR = 'main';
export const HEAD_CURSOR = 'head';
/**
 * Not a cursor but a mark beside them (issue 37): the newest block in which the head scanner saw a
 * transfer to one of our addresses that it does not record (a top-up of a payout or of a merchant's
 * wallet, recorded only once final). Until the solidified cursor passes it, the scanner of solidified
 * blocks reads once a block (lib/payments/scan.ts, `finalityAwaited`).
 */
export const AWAITED_MARK = 'awaited';

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

/**
 * How far the scanners have read the chain, as a follower of our sends judges by (lib/sends/steps.ts,
 * issue 37): `head`, the newest block read (by the head scanner, or the scanner of solidified blocks
 * when there is no head scan or it is behind), and `solidified`, the newest final block read with its
 * timestamp (null before the scanner has read one). Both come from the database: no request to the node.
 */
export interface ScannedHeads {
  head: number;
  solidified: { number: number; timestamp: number } | null;
  /** When a scanner last moved its cursor (ms, the writer's clock): long ago, no scanner is reading. */
  movedAt: number;
}

export async function scannedHeads(prisma: Pick<Prisma.TransactionClient, 'chainCursor'>): Promise<ScannedHeads | null> {
  const cursors = await prisma.chainCursor.findMany({ where: { name: { in: [SOLIDIFIED_CURSOR, HEAD_CURSOR] } }, select: { name: true, blockNumber: true, blockTime: true, updatedAt: true } });
  const solid = cursors.find((c) => c.name === SOLIDIFIED_CURSOR);
  if (!solid) return null;
  // A head cursor left behind (the head scan turned off, FORWARD_BEFORE_FINALITY=false) is older than the solidified one.
  const head = Math.max(solid.blockNumber, cursors.find((c) => c.name === HEAD_CURSOR)?.blockNumber ?? solid.blockNumber);
  return { head, solidified: solid.blockTime ? { number: solid.blockNumber, timestamp: solid.blockTime.getTime() } : null, movedAt: Math.max(...cursors.map((c) => c.updatedAt.getTime())) };
}
