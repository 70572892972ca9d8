import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { TEST_MNEMONIC } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import type { DevnetProcess } from '../helpers/devnet';
import { startHookReceiver, type HookReceiver } from '../helpers/http';
import type { WorkerProcess } from '../helpers/worker';
import type { PrismaClient } from '@/lib/generated/prisma/client';

/**
 * Webhook retries a merchant can turn on (issue 26), through the real worker process: a receiver
 * that is down for the first attempt gets the webhook once it is back, with the same webhook-id,
 * and every attempt is in the delivery log with its outcome. Off (the default) a webhook is sent
 * once, as spec 6 says. The backoff's base is shortened by WEBHOOK_RETRY_BASE_MS; nothing here
 * asserts a timing.
 */
describe('webhook retries', () => {
  const env = {
    MASTER_KEY: process.env.MASTER_KEY ?? randomBytes(32).toString('hex'),
    HD_MNEMONIC: TEST_MNEMONIC,
    NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
    RATES_PROVIDER: 'fixed',
    RATES_FIXED_TRX_USD: '0.25',
    RATES_FIXED_USDT_USD: '1',
  };
  let database: TestDatabase;
  let prisma: PrismaClient;
  let devnet: DevnetProcess;
  let worker: WorkerProcess;
  let waitFor: <T>(what: string, check: () => Promise<T | null | false | undefined>, timeoutMs?: number) => Promise<T>;

  before(async () => {
    database = await createTestDatabase();
    Object.assign(process.env, env, { DATABASE_URL: database.url });
    const { createPrisma } = await import('@/lib/db/client');
    const devnetHelpers = await import('../helpers/devnet');
    const { startWorker } = await import('../helpers/worker');
    prisma = createPrisma(database.url);
    waitFor = devnetHelpers.waitFor as typeof waitFor;
    devnet = await devnetHelpers.startDevnetProcess();
    worker = startWorker({ ...env, DATABASE_URL: database.url }, devnet, { WEBHOOK_RETRY_BASE_MS: '300' });
  });
  after(async () => {
    await worker?.stop();
    await devnet?.stop();
    await prisma?.$disconnect();
    await database?.drop();
  });

  /** A merchant whose webhooks go to `url`, and one invoice whose TIMEOUT is queued in the outbox. */
  async function queuedWebhook(url: string, retries: boolean) {
    const { createMerchant } = await import('@/lib/merchants/service');
    const { createInvoice } = await import('@/lib/invoices/service');
    const { FixedRateSource } = await import('@/lib/rates/fixed');
    const { enqueueInvoiceWebhook } = await import('@/lib/invoices/webhook');
    const merchant = await createMerchant(prisma, { email: `retry-${randomBytes(3).toString('hex')}@example.com`, targetWalletAddress: 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd' });
    // The dashboard's setting (test/api/dashboard.test.ts, e2e/dashboard-truths.spec.ts set it through the UI).
    if (retries) await prisma.merchant.update({ where: { id: merchant.id }, data: { webhookRetries: true, webhookUrl: url } });
    else await prisma.merchant.update({ where: { id: merchant.id }, data: { webhookUrl: url } });
    const invoice = await createInvoice(prisma, new FixedRateSource({ TRX: '0.25', USDT: '1' }), merchant, {
      type: 'SINGLE', amountMicros: 1_000_000n, currencies: ['TRX'], expiryMinutes: undefined, clientCommission: false,
      orderId: 'R-1', webhookUrl: null, redirectUrl: null, description: null,
    });
    await prisma.$transaction((tx) => enqueueInvoiceWebhook(tx, invoice.id, { status: 'TIMEOUT' }));
    return { merchant, invoice };
  }

  it('retries a failed delivery until the receiver is back: one webhook-id, every attempt in the log, resend kept', { timeout: 120_000 }, async () => {
    const receiver: HookReceiver = await startHookReceiver({ down: true });
    try {
      const { merchant, invoice } = await queuedWebhook(receiver.url, true);
      const chain = () => prisma.webhookDelivery.findMany({ where: { invoiceId: invoice.id }, orderBy: { id: 'asc' } });
      // The first attempt finds the receiver down, and a retry is queued behind its backoff.
      const failed = await waitFor('the first attempt to fail and a retry to be queued', async () => {
        const rows = await chain();
        return rows[0]?.status === 'FAILED' && rows.length >= 2 ? rows : null;
      }, 60_000);
      assert.equal(receiver.hooks.length, 0, 'nothing reached a receiver that was down');
      assert.match(failed[0]!.error ?? '', /ECONNREFUSED/);
      await receiver.up();
      const rows = await waitFor('a retry to be delivered', async () => {
        const all = await chain();
        return all.some((d) => d.status === 'DELIVERED') ? all : null;
      }, 60_000);
      const [first, ...retries] = rows;
      const delivered = rows.at(-1)!;
      assert.equal(delivered.status, 'DELIVERED');
      assert.equal(delivered.responseStatus, 200);
      assert.equal(receiver.hooks.length, 1, 'delivered once, and then no more retries');
      // Every attempt after the first points at it and counts up; each failed one keeps its error.
      retries.forEach((d, i) => {
        assert.equal(d.retryOfId, first!.id);
        assert.equal(d.attempt, i + 2);
      });
      for (const d of rows.slice(0, -1)) {
        assert.equal(d.status, 'FAILED');
        assert.ok(d.error);
      }
      // The same event on the wire: Standard Webhooks id and Idempotency-Key of the first attempt.
      const hook = receiver.hooks[0]!;
      assert.equal(hook.headers['webhook-id'], `invoice:${invoice.id}:TIMEOUT`);
      assert.equal(hook.headers['idempotency-key'], `invoice:${invoice.id}:TIMEOUT`);
      assert.equal(hook.headers['x-webhook-id'], String(delivered.id));
      assert.equal(JSON.parse(hook.body).id, invoice.id);

      // The delivery log (the dashboard's query and rows) lists every attempt with its response.
      const { listDeliveries } = await import('@/lib/webhooks/deliveryLog');
      const { deliveryJson } = await import('@/lib/webhooks/serialize');
      const log = await listDeliveries(prisma, merchant.id, { invoice_id: invoice.id }, { limit: 100, offset: 0 });
      assert.equal(log.count, rows.length);
      const json = log.rows.map(deliveryJson);
      assert.deepEqual(json.map((d) => d.attempt).sort((a, b) => a - b), rows.map((_, i) => i + 1));
      assert.equal(json.find((d) => d.status === 'DELIVERED')?.response_status, 200);
      assert.equal(json.find((d) => d.attempt === 1)?.retry_of, null);

      // A manual resend still works, and keeps the event's id.
      const { resendDelivery } = await import('@/lib/webhooks/resend');
      await resendDelivery(prisma, merchant.id, delivered.id);
      await waitFor('the resend to arrive', async () => receiver.hooks.length === 2, 30_000);
      assert.equal(receiver.hooks[1]!.headers['webhook-id'], `invoice:${invoice.id}:TIMEOUT`);
    } finally {
      receiver.close();
    }
  });

  it('sends once when retries are off (the default): a failed delivery is not queued again', { timeout: 60_000 }, async () => {
    const receiver = await startHookReceiver({ down: true });
    try {
      const { merchant, invoice } = await queuedWebhook(receiver.url, false);
      assert.equal(merchant.webhookRetries, false, 'off by default');
      const failed = await waitFor('the delivery to fail', async () => {
        const d = await prisma.webhookDelivery.findFirst({ where: { invoiceId: invoice.id } });
        return d?.status === 'FAILED' ? d : null;
      }, 30_000);
      // The retry would be queued in the same transaction as the failure: none now means none ever.
      assert.equal(await prisma.webhookDelivery.count({ where: { invoiceId: invoice.id } }), 1);
      assert.equal(failed.attempt, 1);
      await receiver.up();
      assert.equal(receiver.hooks.length, 0);
    } finally {
      receiver.close();
    }
  });

  it('backs off exponentially and gives up three days after the first attempt', async () => {
    const { nextAttemptAt, DEFAULT_RETRY } = await import('@/lib/webhooks/deliver');
    const first = new Date('2026-01-01T00:00:00Z');
    let failedAt = first;
    const waits: number[] = [];
    for (let attempt = 1; ; attempt++) {
      const next = nextAttemptAt(DEFAULT_RETRY, attempt, first, failedAt);
      if (!next) break;
      waits.push((next.getTime() - failedAt.getTime()) / 60_000);
      failedAt = next;
    }
    assert.deepEqual(waits.slice(0, 9), [5, 10, 20, 40, 80, 160, 320, 640, 720], 'minutes: doubling from 5, at most 12 h');
    assert.ok(failedAt.getTime() - first.getTime() <= 72 * 3_600_000, 'the last attempt is within three days');
    // 21.25 h for the eight doubling waits, then four of 12 h: the 13th attempt 69.25 h after the first.
    assert.equal(waits.length, 12);
  });
});
