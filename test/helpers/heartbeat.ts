import type { PrismaClient } from '@/lib/generated/prisma/client';
import { waitFor } from './wait';

/** The worker's requests to the node by endpoint, as its newest heartbeat (one every 5 s) wrote them, and when. */
export interface Beat {
  at: Date;
  counts: Record<string, number>;
}

/** The newest heartbeat's request counts (lib/chain/meter.ts, kept in worker_heartbeats.node_requests). */
export async function lastBeat(prisma: PrismaClient): Promise<Beat> {
  const [b] = await prisma.workerHeartbeat.findMany({ orderBy: { scannedAt: 'desc' }, take: 1 });
  return { at: b?.scannedAt ?? new Date(0), counts: (b?.nodeRequests as { requests?: Record<string, number> } | null)?.requests ?? {} };
}

/** The first heartbeat written after `t` (waited for up to 30 s past `t`). */
export function beatAfter(prisma: PrismaClient, t: Date): Promise<Beat> {
  return waitFor(`a heartbeat after ${t.toISOString()}`, async () => {
    const b = await lastBeat(prisma);
    return b.at > t ? b : null;
  }, Math.max(0, t.getTime() - Date.now()) + 30_000);
}

/** A window of the worker's requests: the first heartbeat after `t`, and the first at least `gapMs` after that one (two more). */
export async function beatWindow(prisma: PrismaClient, t: Date, gapMs = 9_000): Promise<{ first: Beat; later: Beat }> {
  const first = await beatAfter(prisma, t);
  const later = await beatAfter(prisma, new Date(first.at.getTime() + gapMs - 1));
  return { first, later };
}

/** What the worker asked between two heartbeats: by endpoint, and every endpoint that moved (for a failure's message). */
export function asked(first: Beat, later: Beat): { delta: (endpoint: string) => number; seen: string } {
  const delta = (endpoint: string) => (later.counts[endpoint] ?? 0) - (first.counts[endpoint] ?? 0);
  const seen = JSON.stringify(Object.fromEntries(Object.keys(later.counts).map((e) => [e, delta(e)]).filter(([, n]) => n !== 0)));
  return { delta, seen };
}
