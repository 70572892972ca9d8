/**
 * The job-queue decision of issue 13 (docs/worker.md, "Job queue"), measured: how long a
 * claimed job stays stuck after the worker holding it is killed with SIGKILL, until another
 * worker runs it again, for
 *   - lease: our lease helper (lib/worker/lease.ts) with LEASE_SECONDS at its default and a
 *     second worker polling every WORKER_POLL_MS (its default), as worker/main.ts does;
 *   - graphile-worker with its default settings (a second runner started after the kill).
 * Prints `recovery_after_kill9_ms{impl=...}=<n>`. A job not run again within
 * BENCH_QUEUE_MAX_WAIT_MS (default 180000) prints the cap, labelled `lower_bound="true"`. Needs PostgreSQL at TEST_DATABASE_URL.
 *   npm run bench:queue
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { sql } from '@/lib/db/sql';
import { PrismaClient } from '@/lib/generated/prisma/client';
import { PrismaPg } from '@prisma/adapter-pg';
import type { WorkerContext } from '@/lib/worker/context';
import { claimOne } from '@/lib/worker/lease';
import { parseWorkerSettings } from '@/lib/config';
import { createTestDatabase } from '../test/helpers/db';

const CAP_MS = Number(process.env.BENCH_QUEUE_MAX_WAIT_MS ?? 180_000);
const DUE = sql`payment_state = 'DETECTED'`;
const [, , role, impl, dbUrl] = process.argv;

function leaseContext(url: string): WorkerContext {
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
  // Only what the lease helper reads; the settings are the worker's, from the environment (defaults).
  return { prisma, settings: parseWorkerSettings(process.env), owner: `bench:${process.pid}:${randomBytes(3).toString('hex')}` } as unknown as WorkerContext;
}

if (role === 'child') {
  // The worker that will be killed: claims the job, says so, and never finishes it.
  if (impl === 'lease') {
    const ctx = leaseContext(dbUrl!);
    const id = await claimOne(ctx, 'transactions', DUE);
    console.log(`CLAIMED ${id}`);
  } else {
    const { run } = await import('graphile-worker');
    await run({ connectionString: dbUrl!, concurrency: 1, taskList: {
        bench: async () => {
          console.log('CLAIMED');
          await new Promise(() => undefined);
        },
      },
    });
  }
  setInterval(() => undefined, 60_000);
} else {
  await main();
}

function startChild(which: string, url: string): { child: ChildProcess; claimed: Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, 'child', which, url], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, LEASE_SECONDS: '', WORKER_POLL_MS: '' } });
  const claimed = new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('CLAIMED')) resolve();
    });
    child.once('exit', () => reject(new Error(`${which} child exited before claiming: ${out}`)));
  });
  return { child, claimed };
}

async function kill9(child: ChildProcess): Promise<number> {
  const killedAt = Date.now();
  await new Promise<void>((r) => {
    child.once('exit', () => r());
    child.kill('SIGKILL');
  });
  return killedAt;
}

async function measureLease(url: string): Promise<number | null> {
  const ctx = leaseContext(url);
  const [m] = await ctx.prisma.$queryRaw<{ id: number }[]>`INSERT INTO merchants (email, topup_wallet_address, activation_wallet_address, webhook_secret_enc) VALUES ('bench@example.com', 'Tbench1', 'Tbench2', 'unused') RETURNING id`;
  await ctx.prisma.$executeRaw`INSERT INTO transactions (merchant_id, type, trn_hash, chain_ref, from_address, to_address, amount_units, currency, payment_state) VALUES (${m!.id}, 'PAYMENT', 'bench', 'bench:trx', 'Tfrom', 'Tto', 1, 'TRX', 'DETECTED')`;
  const { child, claimed } = startChild('lease', url);
  await claimed;
  const killedAt = await kill9(child);
  try {
    // A second worker's payments loop: one claim per round, WORKER_POLL_MS between idle rounds.
    for (;;) {
      if ((await claimOne(ctx, 'transactions', DUE)) !== null) return Date.now() - killedAt;
      if (Date.now() - killedAt > CAP_MS) return null;
      await new Promise((r) => setTimeout(r, ctx.settings.WORKER_POLL_MS));
    }
  } finally {
    await ctx.prisma.$disconnect();
  }
}

async function measureGraphile(url: string): Promise<number | null> {
  const { run, runMigrations, quickAddJob } = await import('graphile-worker');
  await runMigrations({ connectionString: url });
  await quickAddJob({ connectionString: url }, 'bench', {});
  const { child, claimed } = startChild('graphile', url);
  await claimed;
  const killedAt = await kill9(child);
  let ranAt = 0;
  const runner = await run({ connectionString: url, concurrency: 1, taskList: { bench: async () => void (ranAt = Date.now()) } });
  try {
    while (!ranAt && Date.now() - killedAt <= CAP_MS) await new Promise((r) => setTimeout(r, 100));
    return ranAt ? ranAt - killedAt : null;
  } finally {
    await runner.stop();
  }
}

async function main(): Promise<void> {
  const settings = parseWorkerSettings({});
  console.log(`# lease: LEASE_SECONDS=${settings.LEASE_SECONDS}, WORKER_POLL_MS=${settings.WORKER_POLL_MS} (defaults); graphile-worker: default settings; cap ${CAP_MS} ms`);
  for (const [impl, measure] of [['lease', measureLease], ['graphile-worker', measureGraphile]] as const) {
    const db = await createTestDatabase();
    try {
      const ms = await measure(db.url);
      // Not run again within the cap: the cap is printed as a lower bound, labelled so.
      console.log(ms === null ? `recovery_after_kill9_ms{impl=${impl},lower_bound="true"}=${CAP_MS}` : `recovery_after_kill9_ms{impl=${impl}}=${ms}`);
    } finally {
      await db.drop();
    }
  }
}
