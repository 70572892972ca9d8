/**
 * Issue 27, scale-out: worker jobs that read and then act on what every worker shares (the
 * scanner's cursor, the energy pool's stake) run on one worker at a time, the holder of the job's
 * leader lease (lib/worker/leader.ts, `singleton` on a WorkerJob); when it dies another takes
 * over. First the mechanism with two loops in this process, then two real worker processes on
 * one database and one devnet, one of them killed with SIGKILL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPrisma, type PrismaClient } from '@/lib/db/client';
import { queryRows, sql } from '@/lib/db/sql';
import { parseWorkerSettings } from '@/lib/config';
import { LeaderLease } from '@/lib/worker/leader';
import { startJob, type Loop } from '@/lib/worker/loop';
import { SOLIDIFIED_CURSOR } from '@/lib/db/chainCursors';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { dbGate } from '../helpers/dbGate';
import { waitFor } from '../helpers/devnet';
import { assertReconciled } from '../helpers/reconcile';
import { SettlementStack } from '../helpers/settlementStack';
import { startWorker, type WorkerProcess } from '../helpers/worker';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a singleton job runs on one worker at a time (lib/worker/leader.ts)', () => {
  let database: TestDatabase;
  let prisma: PrismaClient;
  const settings = { ...parseWorkerSettings({}), WORKER_POLL_MS: 20, LEADER_LEASE_SECONDS: 2 };
  const loops: Loop[] = [];

  before(async () => {
    database = await createTestDatabase();
    prisma = createPrisma(database.url);
  });
  after(async () => {
    await Promise.all(loops.map((l) => l.stop()));
    await prisma?.$disconnect();
    await database?.drop();
  });

  it('two workers run it one at a time; a clean stop hands it over at once', async () => {
    let running = 0;
    let most = 0;
    const ranBy: string[] = [];
    const job = (owner: string) => ({
      name: 'probe',
      singleton: true as const,
      async step() {
        running += 1;
        most = Math.max(most, running);
        ranBy.push(owner);
        await sleep(30);
        running -= 1;
        return false;
      },
    });
    const first = startJob({ prisma, owner: 'a', settings }, job('a'));
    const second = startJob({ prisma, owner: 'b', settings }, job('b'));
    loops.push(first, second);
    await waitFor('a few rounds', async () => ranBy.length >= 20, 60_000);
    assert.equal(most, 1, 'two rounds ran at once');
    const leader = ranBy[0]!;
    assert.deepEqual(new Set(ranBy), new Set([leader]), `both workers ran it: ${ranBy.join('')}`);
    assert.equal((await prisma.jobLease.findUniqueOrThrow({ where: { job: 'probe' } })).owner, leader);
    // The holder stops cleanly (gives the lease up): the other runs it from its next round.
    const [stopping, other] = leader === 'a' ? [first, 'b'] : [second, 'a'];
    await stopping.stop();
    const from = ranBy.length;
    await waitFor('the other worker to run it', async () => ranBy.slice(from).includes(other), 30_000);
    assert.deepEqual(new Set(ranBy.slice(from)), new Set([other]));
    assert.equal((await prisma.jobLease.findUniqueOrThrow({ where: { job: 'probe' } })).owner, other);
    assert.equal(most, 1);
  });

  it('a holder that died (no renewal, no release) is taken over once its lease has run out, not before', async () => {
    const dead = new LeaderLease(prisma, 'orphaned', 'dead', settings.LEADER_LEASE_SECONDS);
    assert.equal(await dead.hold(), true);
    const { leaseUntil } = await prisma.jobLease.findUniqueOrThrow({ where: { job: 'orphaned' } });
    // Each round of the survivor records whether, by the database's clock, the dead lease had run out.
    const rounds: boolean[] = [];
    loops.push(
      startJob({ prisma, owner: 'survivor', settings }, {
        name: 'orphaned',
        singleton: true,
        async step() {
          const [row] = await queryRows<{ after: boolean }>(prisma, sql`SELECT now() > ${leaseUntil}::timestamptz AS after`);
          rounds.push(row!.after);
          return false;
        },
      }),
    );
    await waitFor('the survivor to take over', async () => rounds.length >= 3, 60_000);
    assert.deepEqual(rounds.filter((r) => !r), [], 'ran while the dead holder\'s lease was still valid');
    const row = await prisma.jobLease.findUniqueOrThrow({ where: { job: 'orphaned' } });
    assert.equal(row.owner, 'survivor');
    assert.ok(row.since >= leaseUntil);
    // The dead holder, were it to come back, finds the job taken and does not run it.
    assert.equal(await new LeaderLease(prisma, 'orphaned', 'dead', settings.LEADER_LEASE_SECONDS).hold(), false);
  });
});

describe('two worker processes on one database: the scanner and the energy job run on one (issue 27)', () => {
  const stack = new SettlementStack();
  let second: WorkerProcess;
  const pool = { ENERGY_POOL_AUTOSTAKE: '1000:100' };

  before(async () => {
    await stack.start(pool);
    second = startWorker(stack.app.env, stack.devnet, { AML_FLAGGED_ADDRESSES: stack.flagged.address, ...pool }, { detached: true });
  });
  after(async () => {
    await second?.stop();
    await stack.stop();
  });

  const workers = () => [stack.worker, second];
  const ownerPid = (owner: string) => Number(owner.split(':').at(-2));
  const leaseOf = async (job: string) => (await stack.app.prisma.jobLease.findUnique({ where: { job } }))?.owner;

  it('runs each on one worker while both run; a SIGKILL of the scanning worker hands the scan to the other, which detects the next payment', async () => {
    const db = stack.app.prisma;
    // Both workers are up (each logs its owner), the pool has been staked and nothing of it is in flight.
    await waitFor('both workers running', async () => workers().every((w) => /worker: running as/.test(w.output())), 120_000);
    await waitFor('the autostake confirmed', async () => (await db.transaction.count({ where: { type: 'STAKE', sendState: 'CONFIRMED' } })) >= 2, 120_000);
    await waitFor('no pool operation in flight', async () => (await db.transaction.count({ where: { sendPurpose: 'POOL_STAKE', sendState: { in: ['SIGNED', 'BROADCAST'] } } })) === 0, 120_000);
    // The pool was staked once per resource, not once per worker.
    const stakes = await db.transaction.findMany({ where: { type: 'STAKE' }, select: { resource: true, sendState: true } });
    assert.deepEqual(stakes.map((s) => s.resource).sort(), ['BANDWIDTH', 'ENERGY'], JSON.stringify(stakes));
    // A while of both running (the scanner's heartbeat moves on): only one worker scans.
    const firstBeat = await waitFor('a heartbeat', () => db.workerHeartbeat.findFirst({ orderBy: { scannedAt: 'desc' } }), 60_000);
    await waitFor('the scanner to beat again', async () => (await db.workerHeartbeat.findFirstOrThrow({ where: { owner: firstBeat.owner } })).scannedAt > firstBeat.scannedAt, 60_000);
    const scanner = await leaseOf('scan');
    assert.deepEqual((await db.workerHeartbeat.findMany()).map((h) => h.owner), [scanner], 'only the scan lease holder scans');
    const scanning = workers().find((w) => w.pid === ownerPid(scanner!))!;
    const other = workers().find((w) => w !== scanning)!;
    assert.ok(scanning && other, `scan lease held by ${scanner}, workers ${workers().map((w) => w.pid).join(', ')}`);
    assert.match(scanning.output(), /running scan on this worker/);
    assert.doesNotMatch(other.output(), /running scan on this worker/);
    assert.ok(await leaseOf('energy'));
    assert.equal(workers().filter((w) => /running energy on this worker/.test(w.output())).length, 1);

    // The scanning worker dies as in a power cut: the other takes the scan over once the lease runs out.
    await scanning.kill();
    const survivor = await waitFor('the scan lease taken over', async () => {
      const owner = await leaseOf('scan');
      return owner && owner !== scanner ? owner : null;
    }, 120_000);
    assert.equal(ownerPid(survivor), other.pid);
    await waitFor('the survivor to say so', async () => other.output().includes(`running scan on this worker (taken over from ${scanner}`), 30_000);
    // ... and the energy job, wherever it ran, is held by the survivor now (a dead holder's lease runs out too).
    await waitFor('the energy lease held by the survivor', async () => (await leaseOf('energy')) === survivor, 120_000);
    // Payments are still detected and settled: the survivor scans.
    const { key } = await stack.newMerchant();
    const invoice = await stack.invoice(key, { type: 'SINGLE', amount: 5, currencies: ['TRX'] });
    await stack.pay(invoice.address, String(invoice.currencies_amounts.TRX), 'TRX');
    await stack.waitStatus(key, invoice.id, 'COMPLETED', 120_000);
    assert.ok(await db.workerHeartbeat.findUnique({ where: { owner: survivor } }), 'the survivor scans');
    await assertReconciled(db, stack.chain, 120_000);
  });

  it('a scanning worker frozen inside its scan\'s transaction (its cursor row locked) does not stop the scan: the database ends its session, and the worker that took over scans on', async () => {
    const db = stack.app.prisma;
    const third = startWorker(stack.app.env, stack.devnet, { AML_FLAGGED_ADDRESSES: stack.flagged.address, ...pool }, { detached: true });
    let frozen: WorkerProcess | undefined;
    try {
      await waitFor('the third worker running', async () => /worker: running as/.test(third.output()), 120_000);
      const scanner = (await leaseOf('scan'))!;
      frozen = [...workers(), third].find((w) => w.pid === ownerPid(scanner))!;
      assert.ok(frozen, `scan lease held by ${scanner}`);
      // The scanner's next batch waits at its cursor's row, which the test holds; the worker is frozen there
      // (SIGSTOP) and the row let go: its UPDATE takes the row, and its transaction stays open while it is frozen.
      const gate = await dbGate(stack.app.env.DATABASE_URL!, 'SELECT 1 FROM chain_cursors WHERE name = $1 FOR UPDATE', [SOLIDIFIED_CURSOR]);
      try {
        await waitFor('the scanner waiting at its cursor', async () => ((await gate.waiting('%UPDATE%chain_cursors%')).length > 0 ? true : null), 60_000);
        process.kill(frozen.pid, 'SIGSTOP');
      } finally {
        await gate.release();
      }
      const taker = await waitFor('the scan lease taken over', async () => {
        const owner = await leaseOf('scan');
        return owner && owner !== scanner ? owner : null;
      }, 120_000);
      // A payment made now is final only once a scanner moves the cursor past it: the frozen worker's open
      // transaction holds that row, until the database ends its session (lib/db/client.ts, IDLE_IN_TRANSACTION_MS).
      const { key } = await stack.newMerchant();
      const invoice = await stack.invoice(key, { type: 'SINGLE', amount: 5, currencies: ['TRX'] });
      await stack.pay(invoice.address, String(invoice.currencies_amounts.TRX), 'TRX');
      await stack.waitStatus(key, invoice.id, 'COMPLETED', 120_000);
      assert.ok(await db.workerHeartbeat.findUnique({ where: { owner: taker } }), 'the worker that took the scan over scans');
    } finally {
      if (frozen) process.kill(frozen.pid, 'SIGCONT');
      await third.stop();
    }
    await assertReconciled(db, stack.chain, 120_000);
  });
});
