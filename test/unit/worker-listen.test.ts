import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { createPrisma, type PrismaClient } from '@/lib/db/client';
import { listenForWork, type Listener } from '@/lib/worker/listen';
import { announceWork, WAKE_CHANNEL } from '@/lib/worker/wake';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

/** Polls `probe` until true; a wake that never comes is a failure after 15 s, not a stuck suite. */
async function until(what: string, probe: () => boolean): Promise<void> {
  for (const started = Date.now(); !probe(); await delay(10)) if (Date.now() - started > 15_000) throw new Error(`timed out waiting for ${what}`);
}

describe('work the web or a script makes wakes the workers of every host, when it commits (issue 41)', () => {
  let database: TestDatabase;
  let prisma: PrismaClient;
  let listener: Listener;
  let wakes = 0;

  before(async () => {
    database = await createTestDatabase();
    prisma = createPrisma(database.url);
    listener = listenForWork(database.url, () => wakes++);
    // Once listening, it wakes the jobs once, for what was announced before it listened.
    await until('the listener to connect', () => wakes === 1);
  });

  after(async () => {
    await listener?.stop();
    await prisma?.$disconnect();
    await database?.drop();
  });

  /** A NOTIFY of another session's, committed at once: delivered after everything committed before it. */
  const marker = () => prisma.$executeRaw`SELECT pg_notify(${WAKE_CHANNEL}, 'marker')`;

  it('announced inside a transaction, the workers are woken when it commits, not before', async () => {
    const start = wakes;
    let release!: () => void;
    const mayCommit = new Promise<void>((r) => (release = r));
    const tx = prisma.$transaction(async (t) => {
      await announceWork(t);
      await mayCommit;
    });
    // Work a door announced is not visible to the workers before its transaction commits.
    await delay(50);
    await marker();
    await until('the marker', () => wakes > start);
    await delay(50);
    assert.equal(wakes, start + 1, 'only the marker woke the listener while the transaction was open');
    release();
    await tx;
    await until('the committed announcement', () => wakes === start + 2);
  });

  it('announced in a transaction that rolls back, no worker is woken', async () => {
    const start = wakes;
    await assert.rejects(
      prisma.$transaction(async (t) => {
        await announceWork(t);
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    // Delivered in commit order: had the rolled-back one been sent, it would come before the marker.
    await marker();
    await until('the marker', () => wakes > start);
    await delay(50);
    assert.equal(wakes, start + 1, 'only the marker woke the listener');
  });

  it('a listener whose connection was cut connects again and wakes the jobs for what it may have missed', async () => {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const { rows } = await admin.query(`SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN ${WAKE_CHANNEL}'`);
      assert.equal(rows.length, 1, 'the listener had one connection');
    } finally {
      await admin.end();
    }
    const start = wakes;
    await until('the listener to connect again', () => wakes === start + 1);
    await announceWork(prisma);
    await until('an announcement after the reconnection', () => wakes === start + 2);
  });
});
