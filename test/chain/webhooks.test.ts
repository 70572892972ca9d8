import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { describe, it } from 'node:test';
import { TEST_MNEMONIC } from '../helpers/app';
import { createTestDatabase } from '../helpers/db';
import { DestinationRefusedError, isPrivateAddress, resolveDestination } from '@/lib/webhooks/destination';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { signWebhook, standardWebhooksSecret, verifyWebhook } from '@/lib/webhooks/signature';

describe('webhook destinations', () => {
  it('knows private, loopback, link-local and mapped addresses', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '0.0.0.0', '100.64.0.1']) {
      assert.ok(isPrivateAddress(ip), ip);
    }
    for (const ip of ['8.8.8.8', '2001:4860:4860::8888']) assert.ok(!isPrivateAddress(ip), ip);
  });

  it('refuses private destinations unless allowed, and non-http schemes always', async () => {
    await assert.rejects(resolveDestination(new URL('http://127.0.0.1:9/x'), false), DestinationRefusedError);
    await assert.rejects(resolveDestination(new URL('http://localhost:9/x'), false), DestinationRefusedError);
    await assert.rejects(resolveDestination(new URL('http://[::1]:9/x'), false), DestinationRefusedError);
    await assert.rejects(resolveDestination(new URL('ftp://8.8.8.8/x'), true), DestinationRefusedError);
    assert.deepEqual(await resolveDestination(new URL('http://127.0.0.1:9/x'), true), { address: '127.0.0.1', family: 4 });
    assert.deepEqual(await resolveDestination(new URL('https://8.8.4.4/x'), false), { address: '8.8.4.4', family: 4 });
  });
});

describe('webhook signatures', () => {
  const body = '{"id":1,"status":"COMPLETED"}';
  it('verifies its own signature and refuses tampering, other secrets and stale timestamps', () => {
    const now = Date.now();
    const header = signWebhook('s3cret', body, Math.floor(now / 1000));
    assert.match(header, /^t=\d+,v1=[0-9a-f]{64}$/);
    assert.ok(verifyWebhook('s3cret', body, header, 300, now));
    assert.ok(!verifyWebhook('s3cret', body.replace('1', '2'), header, 300, now));
    assert.ok(!verifyWebhook('other', body, header, 300, now));
    assert.ok(!verifyWebhook('s3cret', body, header, 300, now + 301_000));
    assert.ok(!verifyWebhook('s3cret', body, 'garbage', 300, now));
  });
});

describe('webhook delivery', () => {
  it('gives the receiver ten seconds in all, not per byte: a trickling answer is cut off and logged', { timeout: 30_000 }, async () => {
    Object.assign(process.env, { MASTER_KEY: randomBytes(32).toString('hex'), HD_MNEMONIC: TEST_MNEMONIC, DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
    const { createPrisma } = await import('@/lib/db/client');
    const { createMerchant } = await import('@/lib/merchants/service');
    const { createInvoice } = await import('@/lib/invoices/service');
    const { FixedRateSource } = await import('@/lib/rates/fixed');
    const { deliverNext } = await import('@/lib/webhooks/deliver');
    const database = await createTestDatabase();
    const prisma = createPrisma(database.url);
    // Answers at once, then sends a byte every 100 ms and never ends: an idle timeout never fires.
    const receiver = createServer((_req, res) => {
      res.writeHead(200);
      const drip = setInterval(() => res.write('.'), 100);
      res.on('close', () => clearInterval(drip));
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const merchant = await createMerchant(prisma, { email: 'hooks@example.com', targetWalletAddress: 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd' });
      const invoice = await createInvoice(prisma, new FixedRateSource({ TRX: '0.25', USDT: '1' }), merchant, {
        type: 'SINGLE', amountMicros: 1_000_000n, currencies: ['TRX'], expiryMinutes: undefined, clientCommission: false,
        orderId: null, webhookUrl: null, redirectUrl: null, description: null,
      });
      const port = (receiver.address() as { port: number }).port;
      await prisma.webhookDelivery.create({ data: { merchantId: merchant.id, invoiceId: invoice.id, eventKey: 'test:trickle', url: `http://127.0.0.1:${port}/hook`, payload: { id: invoice.id } } });
      assert.equal(await deliverNext(prisma, { timeoutMs: 1_000, allowPrivate: true }), true);
      const delivery = await prisma.webhookDelivery.findUniqueOrThrow({ where: { eventKey: 'test:trickle' } });
      assert.equal(delivery.status, 'FAILED');
      assert.equal(delivery.error, 'no response within 1000 ms');
      assert.equal(delivery.attempts, 1, 'sent once, never retried');
      assert.equal(await deliverNext(prisma, { timeoutMs: 1_000, allowPrivate: true }), false);
    } finally {
      receiver.close();
      await prisma.$disconnect();
      await database.drop();
    }
  });
});

describe('webhook delivery across a worker crash (spec 6: sent once)', () => {
  /**
   * The worker claims a delivery (SENDING) before it reads the merchant's secret.
   * A test session holds an exclusive lock on `merchants`, so the real worker
   * process claims the delivery and then waits on that read: it is SIGKILLed there,
   * before any byte left for the receiver. Issue 11 found such deliveries closed as
   * failed without ever being sent.
   */
  async function setUp(receiverBehaviour: 'answer' | 'hang') {
    // lib/config reads the secrets once per process: keep a key an earlier test already set.
    const env = { MASTER_KEY: process.env.MASTER_KEY ?? randomBytes(32).toString('hex'), HD_MNEMONIC: TEST_MNEMONIC, NEXTAUTH_SECRET: randomBytes(32).toString('base64url'), RATES_PROVIDER: 'fixed', RATES_FIXED_TRX_USD: '0.25', RATES_FIXED_USDT_USD: '1' };
    const pg = (await import('pg')).default;
    const { startDevnetProcess, waitFor } = await import('../helpers/devnet');
    const { startWorker } = await import('../helpers/worker');
    const database = await createTestDatabase();
    Object.assign(process.env, env, { DATABASE_URL: database.url });
    const { createPrisma } = await import('@/lib/db/client');
    const { createMerchant } = await import('@/lib/merchants/service');
    const { createInvoice } = await import('@/lib/invoices/service');
    const { FixedRateSource } = await import('@/lib/rates/fixed');
    const prisma = createPrisma(database.url);
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        received.push(body);
        if (receiverBehaviour === 'answer') res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const devnet = await startDevnetProcess();
    const merchant = await createMerchant(prisma, { email: `crash-${randomBytes(3).toString('hex')}@example.com`, targetWalletAddress: 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd' });
    const invoice = await createInvoice(prisma, new FixedRateSource({ TRX: '0.25', USDT: '1' }), merchant, {
      type: 'SINGLE', amountMicros: 1_000_000n, currencies: ['TRX'], expiryMinutes: undefined, clientCommission: false,
      orderId: null, webhookUrl: null, redirectUrl: null, description: null,
    });
    const port = (receiver.address() as { port: number }).port;
    await prisma.webhookDelivery.create({ data: { merchantId: merchant.id, invoiceId: invoice.id, eventKey: 'test:crash', url: `http://127.0.0.1:${port}/hook`, payload: { id: invoice.id } } });
    const workerEnv = { ...env, DATABASE_URL: database.url, WEBHOOK_STALE_SECONDS: '10' };
    const delivery = () => prisma.webhookDelivery.findUniqueOrThrow({ where: { eventKey: 'test:crash' } });
    return {
      prisma, received, devnet, delivery, waitFor,
      worker: () => startWorker(workerEnv, devnet),
      lockMerchants: async () => {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        await client.query('BEGIN');
        await client.query('LOCK TABLE merchants IN ACCESS EXCLUSIVE MODE');
        return async () => {
          await client.query('ROLLBACK');
          await client.end();
        };
      },
      async close() {
        receiver.closeAllConnections();
        receiver.close();
        await devnet.stop();
        await prisma.$disconnect();
        await database.drop();
      },
    };
  }

  it('sends, after a restart, a delivery whose worker died before the POST began', { timeout: 90_000 }, async () => {
    const t = await setUp('answer');
    try {
      const unlock = await t.lockMerchants();
      const first = t.worker();
      await t.waitFor('the worker to claim the delivery', async () => (await t.delivery()).status === 'SENDING', 30_000);
      await first.kill();
      await unlock();
      assert.equal(t.received.length, 0, 'nothing reached the receiver before the crash');
      const second = t.worker();
      try {
        const done = await t.waitFor('the delivery to end', async () => {
          const d = await t.delivery();
          return d.status === 'DELIVERED' || d.status === 'FAILED' ? d : null;
        }, 60_000);
        assert.equal(done.status, 'DELIVERED', `closed without being sent: ${done.error}`);
        assert.equal(t.received.length, 1, 'sent exactly once');
      } finally {
        await second.stop();
      }
    } finally {
      await t.close();
    }
  });

  it('does not send again a delivery whose POST had begun when the worker died', { timeout: 90_000 }, async () => {
    const t = await setUp('hang');
    try {
      const first = t.worker();
      await t.waitFor('the receiver to get the request', async () => t.received.length === 1, 30_000);
      await first.kill();
      const second = t.worker();
      try {
        const done = await t.waitFor('the delivery to be closed', async () => {
          const d = await t.delivery();
          return d.status === 'FAILED' ? d : null;
        }, 60_000);
        assert.match(done.error ?? '', /not resent/);
        await new Promise((r) => setTimeout(r, 1_000));
        assert.equal(t.received.length, 1, 'never sent twice');
      } finally {
        await second.stop();
      }
    } finally {
      await t.close();
    }
  });
});

describe('Standard Webhooks', () => {
  it('signs every real delivery so the standardwebhooks library verifies it, and a resend keeps the event id', { timeout: 30_000 }, async () => {
    Object.assign(process.env, { MASTER_KEY: randomBytes(32).toString('hex'), HD_MNEMONIC: TEST_MNEMONIC, DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
    const { createPrisma } = await import('@/lib/db/client');
    const { createMerchant } = await import('@/lib/merchants/service');
    const { webhookSecret, rotateWebhookSecret } = await import('@/lib/merchants/settings');
    const { systemActor } = await import('@/lib/audit/record');
    const { createInvoice } = await import('@/lib/invoices/service');
    const { FixedRateSource } = await import('@/lib/rates/fixed');
    const { deliverNext } = await import('@/lib/webhooks/deliver');
    const { enqueueInvoiceWebhook } = await import('@/lib/invoices/webhook');
    const { resendDelivery } = await import('@/lib/webhooks/resend');
    const database = await createTestDatabase();
    const prisma = createPrisma(database.url);
    const received: { body: string; headers: Record<string, string> }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        received.push({ body, headers: req.headers as Record<string, string> });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const options = { timeoutMs: 5_000, allowPrivate: true };
    try {
      const port = (receiver.address() as { port: number }).port;
      const merchant = await createMerchant(prisma, { email: 'std@example.com', targetWalletAddress: 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd' });
      const invoice = await createInvoice(prisma, new FixedRateSource({ TRX: '0.25', USDT: '1' }), merchant, {
        type: 'SINGLE', amountMicros: 1_000_000n, currencies: ['TRX'], expiryMinutes: undefined, clientCommission: false,
        orderId: 'std-1', webhookUrl: `http://127.0.0.1:${port}/hook`, redirectUrl: null, description: null,
      });
      await prisma.$transaction((tx) => enqueueInvoiceWebhook(tx, invoice.id, { status: 'TIMEOUT' }));
      assert.equal(await deliverNext(prisma, options), true);
      const original = await prisma.webhookDelivery.findFirstOrThrow({ where: { invoiceId: invoice.id } });
      await resendDelivery(prisma, merchant.id, original.id);
      assert.equal(await deliverNext(prisma, options), true);
      const resend = await prisma.webhookDelivery.findFirstOrThrow({ where: { resendOfId: original.id } });
      await resendDelivery(prisma, merchant.id, resend.id);
      assert.equal(await deliverNext(prisma, options), true);
      assert.equal(received.length, 3);

      const wh = new Webhook(standardWebhooksSecret(webhookSecret(merchant)));
      for (const hook of received) {
        const payload = wh.verify(hook.body, hook.headers) as { id: number; order_id: string };
        assert.equal(payload.id, invoice.id);
        assert.equal(payload.order_id, 'std-1');
        assert.match(hook.headers['webhook-signature'] ?? '', /^v1,[A-Za-z0-9+/]{43}=$/);
        assert.match(hook.headers['webhook-timestamp'] ?? '', /^\d{10}$/);
        // The existing headers stay, over the same timestamp.
        assert.ok(verifyWebhook(webhookSecret(merchant), hook.body, hook.headers['x-webhook-signature'] ?? ''));
        assert.equal(hook.headers['x-webhook-signature']?.split(',')[0], `t=${hook.headers['webhook-timestamp']}`);
      }
      assert.deepEqual(received.map((h) => h.headers['webhook-id']), Array(3).fill(`invoice:${invoice.id}:TIMEOUT`), 'a resend (and a resend of a resend) keeps the event id');
      assert.notEqual(received[0]?.headers['x-webhook-id'], received[1]?.headers['x-webhook-id'], 'X-Webhook-Id still names the delivery');

      const first = received[0]!;
      assert.throws(() => wh.verify(first.body.replace('std-1', 'std-2'), first.headers), WebhookVerificationError, 'a changed body is refused');
      assert.throws(() => wh.verify(first.body, { ...first.headers, 'webhook-id': 'invoice:1:COMPLETED' }), WebhookVerificationError, 'the id is signed');
      await rotateWebhookSecret(prisma, merchant.id, systemActor('test'));
      const rotated = await prisma.merchant.findUniqueOrThrow({ where: { id: merchant.id } });
      assert.throws(() => new Webhook(standardWebhooksSecret(webhookSecret(rotated))).verify(first.body, first.headers), WebhookVerificationError, 'another secret is refused');
    } finally {
      receiver.close();
      await prisma.$disconnect();
      await database.drop();
    }
  });
});
