import { nodeRequestCounts } from '@/lib/chain/meter';
import type { PrismaClient } from '@/lib/generated/prisma/client';

/** A worker writes at most this often; WORKER_STALE_SECONDS must leave room for a few missed beats. */
const HEARTBEAT_EVERY_MS = 5_000;
/** Rows of workers gone this long are removed by the next beat of any worker. */
const FORGET_AFTER_MS = 7 * 24 * 3600_000;

/**
 * The scan loop's heartbeat: called after every completed scan step, it writes
 * the time at most every HEARTBEAT_EVERY_MS. A step that throws (node or
 * database unreachable) does not beat, so /healthz sees a worker that runs but
 * cannot scan as stopped, which it is for the merchants.
 */
export function scanHeartbeat(prisma: PrismaClient, owner: string, now = () => Date.now()): () => Promise<void> {
  let last = -Infinity;
  return async () => {
    if (now() - last < HEARTBEAT_EVERY_MS) return;
    const at = new Date(now());
    // With the beat, what this worker has asked the node so far (lib/chain/meter.ts): /metrics shows every live worker's.
    const nodeRequests = nodeRequestCounts();
    await prisma.workerHeartbeat.upsert({ where: { owner }, create: { owner, scannedAt: at, nodeRequests }, update: { scannedAt: at, nodeRequests } });
    await prisma.workerHeartbeat.deleteMany({ where: { scannedAt: { lt: new Date(at.getTime() - FORGET_AFTER_MS) } } });
    last = at.getTime();
  };
}

/** When any worker last completed a scan step, or null if none ever has (on this database). */
export async function lastScanAt(prisma: PrismaClient): Promise<Date | null> {
  const row = await prisma.workerHeartbeat.findFirst({ orderBy: { scannedAt: 'desc' }, select: { scannedAt: true } });
  return row?.scannedAt ?? null;
}
