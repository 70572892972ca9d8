/**
 * Issue 27, finding 4: merchant accounts whose receivers are slow (sign-up is open, so an attacker
 * has as many as it likes) must not occupy every webhook sender. Merchants' receivers answer after
 * a few seconds and have deliveries queued; another merchant, whose receiver has answered quickly,
 * must still get its deliveries out at once, taking about its own receiver's time. The worker's
 * senders run as the worker runs them (`webhookSenders`, each repeated by `startJob`), against a
 * real database and real HTTP receivers; each case on a database of its own.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { TEST_MNEMONIC } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/db';

const SLOW_MS = 3_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Prisma = Awaited<ReturnType<typeof import('@/lib/db/client').createPrisma>>;
interface Merchant {
  merchantId: number;
  invoiceId: number;
}

describe('webhook senders are shared fairly across merchants (issue 27, finding 4)', () => {
  const databases: TestDatabase[] = [];
  const prismas: Prisma[] = [];
  let slow: Server;
  let slower: Server;
  let fast: Server;
  const url = (s: Server) => `http://127.0.0.1:${(s.address() as { port: number }).port}/hook`;

  before(async () => {
    Object.assign(process.env, { MASTER_KEY: randomBytes(32).toString('hex'), HD_MNEMONIC: TEST_MNEMONIC, DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
    slow = createServer((_req, res) => void setTimeout(() => res.end('ok'), SLOW_MS));
    slower = createServer((_req, res) => void setTimeout(() => res.end('ok'), 2 * SLOW_MS));
    fast = createServer((_req, res) => res.end('ok'));
    await Promise.all([slow, slower, fast].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
  });
  after(async () => {
    for (const s of [slow, slower, fast]) {
      s?.closeAllConnections();
      s?.close();
    }
    await Promise.all(prismas.map((p) => p.$disconnect()));
    await Promise.all(databases.map((d) => d.drop()));
  });

  /**
   * A fresh database with the worker's senders running on it, and what a case needs to drive them;
   * `reservedOnly`: only the senders kept for fast receivers, until `startShared`.
   */
  async function bench(options: { reservedOnly?: boolean } = {}) {
    const { createPrisma } = await import('@/lib/db/client');
    const { createMerchant } = await import('@/lib/merchants/service');
    const { createInvoice } = await import('@/lib/invoices/service');
    const { FixedRateSource } = await import('@/lib/rates/fixed');
    const { prepareAccounts } = await import('@/lib/merchants/accounts');
    const { webhookSenders } = await import('@/lib/webhooks/senders');
    const { parseWorkerSettings } = await import('@/lib/config');
    const { startJob } = await import('@/lib/worker/loop');
    const database = await createTestDatabase();
    databases.push(database);
    const prisma = createPrisma(database.url);
    prismas.push(prisma);
    // Merchants get their account keys from the pool a mnemonic holder prepares (lib/merchants/accounts.ts).
    await prepareAccounts(prisma, TEST_MNEMONIC);
    const rates = new FixedRateSource({ TRX: '0.25', USDT: '1' });
    const merchant = async (name: string): Promise<Merchant> => {
      const m = await createMerchant(prisma, { email: `${name}-${randomBytes(3).toString('hex')}@example.com`, targetWalletAddress: 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd' });
      const invoice = await createInvoice(prisma, rates, m, {
        type: 'SINGLE', amountMicros: 1_000_000n, currencies: ['TRX'], expiryMinutes: undefined, clientCommission: false,
        orderId: null, webhookUrl: null, redirectUrl: null, description: null,
      });
      return { merchantId: m.id, invoiceId: invoice.id };
    };
    let n = 0;
    // Queued as the outbox queues them: a PENDING row per event.
    const queue = (m: Merchant, to: Server) => {
      const key = `e-${m.merchantId}-${n++}`;
      return prisma.webhookDelivery.create({ data: { merchantId: m.merchantId, invoiceId: m.invoiceId, eventKey: key, url: url(to), payload: { key } } });
    };
    const delivered = async (id: number) => {
      let row = await prisma.webhookDelivery.findUniqueOrThrow({ where: { id } });
      while (row.status === 'PENDING' || row.status === 'SENDING') {
        await sleep(20);
        row = await prisma.webhookDelivery.findUniqueOrThrow({ where: { id } });
      }
      assert.equal(row.status, 'DELIVERED', row.error ?? '');
      return row;
    };
    /** Queues one delivery to `to` and returns how long it waited for a sender (queued to sent, both by the database's clock). */
    const waitOf = async (m: Merchant, to: Server) => {
      const row = await delivered((await queue(m, to)).id);
      return row.sentAt!.getTime() - row.createdAt.getTime();
    };
    const settings = { ...parseWorkerSettings({}), WORKER_POLL_MS: 50 };
    const jobs = webhookSenders(prisma, { timeoutMs: 10_000, allowPrivate: true });
    const shared = jobs.filter((j) => !j.name.startsWith('webhooks-fast-'));
    const start = (some: typeof jobs) => some.map((job) => startJob({ prisma, owner: 'test', settings }, job));
    const reservedLoops = start(jobs.filter((j) => !shared.includes(j)));
    let sharedLoops = options.reservedOnly ? [] : start(shared);
    const inFlightPeaks: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const rows = await prisma.webhookDelivery.groupBy({ by: ['merchantId'], where: { status: 'SENDING' }, _count: { _all: true } });
        inFlightPeaks.push(...rows.map((r) => r._count._all));
        await sleep(100);
      }
    })();
    return {
      prisma,
      merchant,
      queue,
      delivered,
      waitOf,
      /** Its receiver answers FAST_PROOF_DELIVERIES times in a row, quickly: proven fast. */
      async prove(m: Merchant) {
        const { FAST_PROOF_DELIVERIES } = await import('@/lib/webhooks/senders');
        for (let i = 0; i < FAST_PROOF_DELIVERIES; i++) await delivered((await queue(m, fast)).id);
      },
      /** Waits until the slow receivers hold every shared sender. */
      async sharedSendersBusy() {
        const { SHARED_SENDERS } = await import('@/lib/webhooks/senders');
        while ((await prisma.webhookDelivery.count({ where: { status: 'SENDING', reserved: false } })) < SHARED_SENDERS) await sleep(50);
      },
      reservedOf: async (ms: Merchant[]) => prisma.webhookDelivery.count({ where: { reserved: true, merchantId: { in: ms.map((m) => m.merchantId) } } }),
      pendingOf: async (ms: Merchant[]) => prisma.webhookDelivery.count({ where: { status: 'PENDING', merchantId: { in: ms.map((m) => m.merchantId) } } }),
      inFlightPeak: () => Math.max(0, ...inFlightPeaks),
      startShared: () => void (sharedLoops = start(shared)),
      async stopShared() {
        await Promise.all(sharedLoops.map((l) => l.stop()));
        sharedLoops = [];
      },
      async stop() {
        sampling = false;
        await sampler;
        for (const s of [slow, slower]) s.closeAllConnections();
        await Promise.all([...reservedLoops, ...sharedLoops].map((l) => l.stop()));
      },
    };
  }

  it('three merchants with slow receivers leave senders for an idle merchant, whose deliveries take about its own receiver\'s time', { timeout: 180_000 }, async () => {
    const { MAX_SENDING_PER_MERCHANT } = await import('@/lib/webhooks/senders');
    const b = await bench();
    try {
      const idle = await b.merchant('idle');
      await b.prove(idle);
      const busy = await Promise.all(['a', 'b', 'c'].map(b.merchant));
      for (const m of busy) for (let n = 0; n < 10; n++) await b.queue(m, slow);
      await b.sharedSendersBusy();
      const waits: number[] = [];
      for (let n = 0; n < 5; n++) {
        waits.push(await b.waitOf(idle, fast));
        // The busy merchants were still at it: their receivers held senders all along.
        assert.ok((await b.pendingOf(busy)) > 0, 'the slow merchants still had deliveries queued');
      }
      // Without a share kept from slow receivers, each waited for one of them to answer (up to 3 s).
      for (const w of waits) assert.ok(w < SLOW_MS / 3, `the idle merchant's delivery waited ${w} ms for a sender: ${waits.join(', ')}`);
      assert.ok(b.inFlightPeak() <= MAX_SENDING_PER_MERCHANT, `a merchant had ${b.inFlightPeak()} deliveries in flight`);
      // The slow merchants are served too, by the senders that are not kept back, and never by a kept one.
      const servedBusy = () => b.prisma.webhookDelivery.groupBy({ by: ['merchantId'], where: { status: 'DELIVERED', merchantId: { in: busy.map((m) => m.merchantId) } } });
      while ((await servedBusy()).length < busy.length) await sleep(100);
      assert.equal(await b.reservedOf(busy), 0);
    } finally {
      await b.stop();
    }
  });

  it('new sign-ups with slow receivers, each with deliveries queued, cannot take the kept senders: they have proven nothing', { timeout: 180_000 }, async () => {
    const b = await bench();
    try {
      const idle = await b.merchant('idle');
      await b.prove(idle);
      // Two known slow merchants hold the shared senders; eight accounts just signed up, each with slow receivers.
      const known = await Promise.all(['a', 'b'].map(b.merchant));
      for (const m of known) for (let n = 0; n < 10; n++) await b.queue(m, slow);
      const fresh = await Promise.all(Array.from({ length: 8 }, (_, i) => b.merchant(`new${i}`)));
      for (const m of fresh) for (let n = 0; n < 3; n++) await b.queue(m, slow);
      await b.sharedSendersBusy();
      const waits: number[] = [];
      for (let n = 0; n < 5; n++) waits.push(await b.waitOf(idle, fast));
      assert.ok((await b.pendingOf(fresh)) > 0, 'the new merchants still had deliveries queued');
      // Counted as fast before they answered once, each new account held a kept sender for its receiver's 3 s.
      for (const w of waits) assert.ok(w < SLOW_MS / 3, `the idle merchant's delivery waited ${w} ms for a sender: ${waits.join(', ')}`);
      assert.equal(await b.reservedOf([...known, ...fresh]), 0, 'a kept sender served an unproven merchant');
    } finally {
      await b.stop();
    }
  });

  it('a proven receiver that turns slow holds a kept sender at most a second, and is kept off them for a while however fast it answers again', { timeout: 240_000 }, async () => {
    const { FAST_PROOF_DELIVERIES } = await import('@/lib/webhooks/senders');
    const b = await bench({ reservedOnly: true });
    try {
      const idle = await b.merchant('idle');
      const turning = await Promise.all(['t1', 't2'].map(b.merchant));
      // Proven by the shared senders; then the kept senders alone, so the slow deliveries below can go nowhere else.
      b.startShared();
      for (const m of [idle, ...turning]) await b.prove(m);
      await b.stopShared();
      // Both proven accounts turn slow at once (6 s), each taking one of the two kept senders: the
      // senders let their requests go on after FAST_RECEIVER_MS, so the idle merchant still gets one.
      const turned = await Promise.all(turning.map((m) => b.queue(m, slower)));
      while ((await b.prisma.webhookDelivery.count({ where: { id: { in: turned.map((d) => d.id) }, status: 'SENDING' } })) < 2) await sleep(20);
      assert.equal(await b.reservedOf(turning), 2, 'each took a kept sender');
      const wait = await b.waitOf(idle, fast);
      // A kept sender is free again a second after it was taken (FAST_RECEIVER_MS); without that it was held the receiver's 6 s.
      assert.ok(wait < (2 * SLOW_MS) / 3, `the idle merchant's delivery waited ${wait} ms while two turned receivers took ${2 * SLOW_MS} ms to answer`);
      // The slow answers are recorded (the requests went on to their end) and demote both accounts.
      for (const d of turned) assert.ok((await b.delivered(d.id)).latencyMs! >= 2 * SLOW_MS);
      // They answer fast again, more often than proved them first: still kept off the kept senders
      // (only the shared ones, started now, serve them).
      b.startShared();
      const again: number[] = [];
      for (const m of turning) for (let i = 0; i <= FAST_PROOF_DELIVERIES; i++) again.push((await b.delivered((await b.queue(m, fast)).id)).id);
      assert.equal(await b.prisma.webhookDelivery.count({ where: { id: { in: again }, reserved: true } }), 0, 'a demoted merchant got a kept sender');
      for (const m of turning) {
        const r = await b.prisma.webhookReceiver.findUniqueOrThrow({ where: { merchantId: m.merchantId } });
        assert.ok(r.fastStreak > FAST_PROOF_DELIVERIES && r.slowUntil! > new Date(), JSON.stringify(r));
      }
    } finally {
      await b.stop();
    }
  });
});
