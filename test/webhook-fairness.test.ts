/**
 * Issue 27, finding 4: merchant accounts whose receivers are slow (sign-up is open, so an attacker
 * has as many as it likes) must not occupy every webhook sender. Three merchants' receivers answer
 * after 3 s and have deliveries queued; a fourth merchant's deliveries must still go out at once,
 * taking about its own receiver's time. The worker's senders run as the worker runs them
 * (`webhookSenders`, each repeated by `startLoop`), against a real database and real HTTP receivers.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { TEST_MNEMONIC } from './helpers/app';
import { createTestDatabase, type TestDatabase } from './helpers/db';

const SLOW_MS = 3_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('webhook senders are shared fairly across merchants (issue 27, finding 4)', () => {
  let database: TestDatabase;
  let prisma: Awaited<ReturnType<typeof import('@/lib/db/client').createPrisma>>;
  let slow: Server;
  let fast: Server;
  const port = (s: Server) => (s.address() as { port: number }).port;

  before(async () => {
    Object.assign(process.env, { MASTER_KEY: randomBytes(32).toString('hex'), HD_MNEMONIC: TEST_MNEMONIC, DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
    const { createPrisma } = await import('@/lib/db/client');
    database = await createTestDatabase();
    prisma = createPrisma(database.url);
    // Merchants get their account keys from the pool a mnemonic holder prepares (lib/merchants/accounts.ts).
    const { prepareAccounts } = await import('@/lib/merchants/accounts');
    await prepareAccounts(prisma, TEST_MNEMONIC);
    slow = createServer((_req, res) => void setTimeout(() => res.end('ok'), SLOW_MS));
    fast = createServer((_req, res) => res.end('ok'));
    await Promise.all([slow, fast].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
  });
  after(async () => {
    slow?.closeAllConnections();
    slow?.close();
    fast?.close();
    await prisma?.$disconnect();
    await database?.drop();
  });

  it('three merchants with slow receivers leave senders for an idle merchant, whose deliveries take about its own receiver\'s time', { timeout: 120_000 }, async () => {
    const { createMerchant } = await import('@/lib/merchants/service');
    const { createInvoice } = await import('@/lib/invoices/service');
    const { FixedRateSource } = await import('@/lib/rates/fixed');
    const { webhookSenders, MAX_SENDING_PER_MERCHANT } = await import('@/lib/webhooks/senders');
    const { startLoop } = await import('@/lib/worker/loop');
    const rates = new FixedRateSource({ TRX: '0.25', USDT: '1' });
    const merchantWithInvoice = async (name: string) => {
      const merchant = await createMerchant(prisma, { email: `${name}-${randomBytes(3).toString('hex')}@example.com`, targetWalletAddress: 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd' });
      const invoice = await createInvoice(prisma, rates, merchant, {
        type: 'SINGLE', amountMicros: 1_000_000n, currencies: ['TRX'], expiryMinutes: undefined, clientCommission: false,
        orderId: null, webhookUrl: null, redirectUrl: null, description: null,
      });
      return { merchantId: merchant.id, invoiceId: invoice.id };
    };
    // Queued as the outbox queues them: a PENDING row per event.
    const queue = (m: { merchantId: number; invoiceId: number }, key: string, url: string) =>
      prisma.webhookDelivery.create({ data: { merchantId: m.merchantId, invoiceId: m.invoiceId, eventKey: key, url, payload: { key } } });

    const busy = await Promise.all(['a', 'b', 'c'].map(merchantWithInvoice));
    const idle = await merchantWithInvoice('idle');
    for (const [i, m] of busy.entries()) {
      for (let n = 0; n < 10; n++) await queue(m, `busy-${i}-${n}`, `http://127.0.0.1:${port(slow)}/hook`);
    }
    const senders = webhookSenders(prisma, { timeoutMs: 10_000, allowPrivate: true });
    const loops = senders.map((s) => startLoop(s.name, 50, s.step));
    const inFlightPeaks: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const rows = await prisma.webhookDelivery.groupBy({ by: ['merchantId'], where: { status: 'SENDING' }, _count: { _all: true } });
        inFlightPeaks.push(...rows.map((r) => r._count._all));
        await sleep(100);
      }
    })();
    try {
      // Once each busy merchant has finished a delivery, its receiver is known to be slow.
      for (;;) {
        const done = await prisma.webhookDelivery.groupBy({ by: ['merchantId'], where: { status: 'DELIVERED', merchantId: { in: busy.map((m) => m.merchantId) } }, _count: { _all: true } });
        if (done.length === busy.length) break;
        await sleep(100);
      }
      const waits: number[] = [];
      for (let n = 0; n < 5; n++) {
        const d = await queue(idle, `idle-${n}`, `http://127.0.0.1:${port(fast)}/hook`);
        let row = await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: d.id } });
        while (row.status === 'PENDING' || row.status === 'SENDING') {
          await sleep(20);
          row = await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: d.id } });
        }
        assert.equal(row.status, 'DELIVERED', row.error ?? '');
        // From queued to sent, both by the database's clock.
        waits.push(row.sentAt!.getTime() - row.createdAt.getTime());
        // The busy merchants were still at it: their receivers held senders all along.
        assert.ok((await prisma.webhookDelivery.count({ where: { status: 'PENDING', merchantId: { in: busy.map((m) => m.merchantId) } } })) > 0, 'the slow merchants still had deliveries queued');
      }
      // Without a share kept from slow receivers, each waited for one of them to answer (up to 3 s).
      for (const w of waits) assert.ok(w < SLOW_MS / 3, `the idle merchant's delivery waited ${w} ms for a sender: ${waits.join(', ')}`);
      assert.ok(Math.max(...inFlightPeaks) <= MAX_SENDING_PER_MERCHANT, `a merchant had ${Math.max(...inFlightPeaks)} deliveries in flight`);
      // The slow merchants were served too, by the senders that are not kept back.
      assert.ok((await prisma.webhookDelivery.count({ where: { status: 'DELIVERED', merchantId: { in: busy.map((m) => m.merchantId) } } })) >= busy.length);
    } finally {
      sampling = false;
      await sampler;
      slow.closeAllConnections();
      await Promise.all(loops.map((l) => l.stop()));
    }
  });
});
