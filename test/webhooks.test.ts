import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { describe, it } from 'node:test';
import { TEST_MNEMONIC } from './helpers/app';
import { createTestDatabase } from './helpers/db';
import { DestinationRefusedError, isPrivateAddress, resolveDestination } from '@/lib/webhooks/destination';
import { signWebhook, verifyWebhook } from '@/lib/webhooks/signature';

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
