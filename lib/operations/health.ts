import type { PrismaClient } from '@/lib/generated/prisma/client';
import { lastScanAt } from './heartbeat';

export interface HealthOptions {
  /** A newest heartbeat older than this fails the check. */
  workerStaleSeconds: number;
  /** Fail while no worker has ever reported (production); otherwise the worker check starts with the first heartbeat. */
  requireWorker: boolean;
}

export type Health = { ok: true; worker: 'scanning' | 'not expected' ; lastScanAgeSeconds: number | null } | { ok: false; detail: string };

/**
 * /healthz: the database answers, and the worker is scanning. A setup that runs
 * no worker (the web app alone, most tests) has no heartbeat and passes unless
 * HEALTHZ_REQUIRE_WORKER is set; once a worker has reported, its silence fails
 * the check (docs/operations.md).
 */
export async function checkHealth(prisma: PrismaClient, options: HealthOptions, now = Date.now()): Promise<Health> {
  const last = await lastScanAt(prisma);
  if (last === null) return options.requireWorker ? { ok: false, detail: 'no worker has reported a scan yet' } : { ok: true, worker: 'not expected', lastScanAgeSeconds: null };
  const age = Math.max(0, Math.floor((now - last.getTime()) / 1000));
  if (age > options.workerStaleSeconds) return { ok: false, detail: `worker has not scanned for ${age} s (limit ${options.workerStaleSeconds} s)` };
  return { ok: true, worker: 'scanning', lastScanAgeSeconds: age };
}
