import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { describe, it } from 'node:test';
import { TEST_MNEMONIC } from './helpers/app';
import { createTestDatabase } from './helpers/db';
import { DestinationRefusedError, isPrivateAddress, resolveDestination } from '@/lib/webhooks/destination';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { signWebhook, standardWebhooksSecret, verifyWebhook } from '@/lib/webhooks/signature';

describe('webhook destinations', () => {
  it('knows private, loopback, link-local and mapped addresses', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '0.0.0.0', '100.64.0.1']) {
      assert.ok(isPrivateAddress(ip), ip);
    }
    for (const ip of ['8.8.8.8', '203.0.113.10', '2001:4860:4860::8888']) assert.ok(!isPrivateAddress(ip), ip);
  });

  it('refuses private destinations unless allowed, and non-http schemes always', async () => {
    await assert.rejects(resolveDestination(new URL('http://127.0.0.1:9/x'), false), DestinationRefusedError);
    await assert.rejects(resolveDestination(new URL('http://localhost:9/x'), false), DestinationRefusedError);
    await assert.rejects(resolveDestination(new URL('http://[::1]:9/x'), false), DestinationRefusedError);
    await assert.rejects(resolveDestination(new URL('ftp://8.8.8.8/x'), true), DestinationRefusedError);
    assert.deepEqual(await resolveDestination(new URL('http://127.0.0.1:9/x'), true), { address: '127.0.0.1', family: 4 });
    assert.deepEqual(await resolveDestination(new URL('https://203.0.113.10/x'), false), { address: '203.0.113.10', family: 4 });
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

describe('Standard Webhooks', () => {
  it('signs every real delivery so the standardwebhooks library verifies it, and a resend keeps the event id', { timeout: 30_000 }, async () => {
    Object.assign(process.env, { MASTER_KEY: randomBytes(32).toString('hex'), HD_MNEMONIC: TEST_MNEMONIC, DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
    const { createPrisma } = await import('@/lib/db/client');
    const { createMerchant } = await import('@/lib/merchants/service');
    const { webhookSecret, rotateWebhookSecret } = await import('@/lib/merchants/settings');
    const { createInvoice } = await import('@/lib/invoices/service');
    const { FixedRateSource } = await import('@/lib/rates/fixed');
    const { deliverNext } = await import('@/lib/webhooks/deliver');
    const { enqueueInvoiceWebhook } = await import('@/lib/webhooks/outbox');
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
      await rotateWebhookSecret(prisma, merchant.id);
      const rotated = await prisma.merchant.findUniqueOrThrow({ where: { id: merchant.id } });
      assert.throws(() => new Webhook(standardWebhooksSecret(webhookSecret(rotated))).verify(first.body, first.headers), WebhookVerificationError, 'another secret is refused');
    } finally {
      receiver.close();
      await prisma.$disconnect();
      await database.drop();
    }
  });
});
