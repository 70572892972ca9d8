/**
 * Issue 14, the findings that live in lib/ alone: webhook destinations (6),
 * sign-in throttling per account and per IPv6 /64 (8), webhook fairness (3).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { TEST_MNEMONIC } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { isPrivateAddress, resolveDestination, DestinationRefusedError } from '@/lib/webhooks/destination';

describe('6. webhook destinations: only globally routable unicast', () => {
  it('refuses special-purpose IPv4 ranges', () => {
    for (const ip of ['192.0.0.8', '192.0.2.1', '198.51.100.7', '203.0.113.10', '192.88.99.1', '255.255.255.255', '198.18.0.1', '100.64.0.1', '240.0.0.1', '224.0.0.1']) {
      assert.ok(isPrivateAddress(ip), ip);
    }
  });

  it('decodes IPv4 embedded in IPv6 and checks it', () => {
    for (const ip of [
      '64:ff9b::7f00:1', // NAT64 of 127.0.0.1
      '64:ff9b::a9fe:a9fe', // NAT64 of 169.254.169.254
      '64:ff9b:1::a00:1', // local-use NAT64 prefix
      '::127.0.0.1', // IPv4-compatible
      '::a00:1',
      '::ffff:10.0.0.1', // IPv4-mapped
      '::ffff:0:a00:1', // IPv4-translated
      '2002:7f00:1::1', // 6to4 of 127.0.0.1
      '2002:c0a8:101::1', // 6to4 of 192.168.1.1
      '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo, client 127.0.0.1 (obfuscated)
      '2001:db8::1', // documentation
      '100::1', // discard-only
      'fec0::1', // site-local (deprecated)
      '::', '::1', 'fe80::1', 'fd00::1', 'ff02::1',
    ]) {
      assert.ok(isPrivateAddress(ip), ip);
    }
  });

  it('allows public unicast, including public IPv4 behind NAT64 and 6to4', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888', '2606:4700:4700::1111', '64:ff9b::808:808', '2002:808:808::1', '::ffff:8.8.8.8']) {
      assert.ok(!isPrivateAddress(ip), ip);
    }
  });

  it('refuses a hostname that is an embedded private address', async () => {
    await assert.rejects(resolveDestination(new URL('http://[64:ff9b::7f00:1]:9/x'), false), DestinationRefusedError);
    await assert.rejects(resolveDestination(new URL('http://[2002:7f00:1::1]/x'), false), DestinationRefusedError);
    await assert.rejects(resolveDestination(new URL('http://192.0.0.8/x'), false), DestinationRefusedError);
  });
});

describe('with a database', () => {
  let database: TestDatabase;
  let prisma: Awaited<ReturnType<typeof import('@/lib/db/client').createPrisma>>;
  before(async () => {
    Object.assign(process.env, { MASTER_KEY: randomBytes(32).toString('hex'), HD_MNEMONIC: TEST_MNEMONIC, DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
    const { createPrisma } = await import('@/lib/db/client');
    database = await createTestDatabase();
    prisma = createPrisma(database.url);
  });
  after(async () => {
    await prisma?.$disconnect();
    await database?.drop();
  });

  describe('8. sign-in throttling', () => {
    it('locks an account after failures spread over many addresses', async () => {
      const { throttledSignIn, TooManyAttempts, MAX_FAILED_SIGN_INS_PER_ACCOUNT } = await import('@/lib/auth/signInThrottle');
      const email = 'victim@example.com';
      const wrong = async () => null;
      // The slowdown's pauses, recorded instead of waited.
      const pauses: number[] = [];
      const sleep = async (ms: number) => pauses.push(ms);
      let ip = 0;
      for (let i = 0; i < MAX_FAILED_SIGN_INS_PER_ACCOUNT; i++) {
        // Four guesses per address: under the per-address limit every time.
        if (i % 4 === 0) ip++;
        assert.equal(await throttledSignIn(prisma, { email, ip: `198.51.100.${ip}` }, wrong, sleep), null);
      }
      assert.equal(pauses.length, MAX_FAILED_SIGN_INS_PER_ACCOUNT - 5, 'every guess after the fifth waits');
      assert.ok(pauses.every((ms, i) => i === 0 || ms >= pauses[i - 1]!), `growing: ${pauses}`);
      await assert.rejects(throttledSignIn(prisma, { email, ip: '203.0.113.99' }, async () => 'right password', sleep), TooManyAttempts);
      assert.equal(await throttledSignIn(prisma, { email: 'other@example.com', ip: '203.0.113.99' }, async () => 'ok'), 'ok', 'other accounts are not affected');
    });

    it('counts an IPv6 /64 as one address', async () => {
      const { throttledSignIn, TooManyAttempts, MAX_FAILED_SIGN_INS } = await import('@/lib/auth/signInThrottle');
      const email = 'v6@example.com';
      const sleep = async () => undefined;
      for (let i = 0; i < MAX_FAILED_SIGN_INS; i++) assert.equal(await throttledSignIn(prisma, { email, ip: `2001:db8:1:2::${i + 1}` }, async () => null, sleep), null);
      await assert.rejects(throttledSignIn(prisma, { email, ip: '2001:db8:1:2:ffff:ffff:ffff:ffff' }, async () => 'x', sleep), TooManyAttempts);
      assert.equal(await throttledSignIn(prisma, { email, ip: '2001:db8:1:3::1' }, async () => 'x', sleep), 'x', 'the next /64 is another address');
    });

    it('slows down each further guess on an account under attack', async () => {
      const { accountSlowdownMs, MAX_FAILED_SIGN_INS } = await import('@/lib/auth/signInThrottle');
      assert.equal(accountSlowdownMs(0), 0);
      assert.equal(accountSlowdownMs(MAX_FAILED_SIGN_INS - 1), 0);
      assert.ok(accountSlowdownMs(MAX_FAILED_SIGN_INS) > 0);
      assert.ok(accountSlowdownMs(MAX_FAILED_SIGN_INS + 3) > accountSlowdownMs(MAX_FAILED_SIGN_INS));
      assert.ok(accountSlowdownMs(1000) <= 10_000, 'bounded');
    });
  });

  describe('3. webhook delivery is fair across merchants', () => {
    let tarpit: Server;
    let fast: Server;
    const received: string[] = [];
    before(async () => {
      tarpit = createServer(() => {
        /* never answers */
      });
      fast = createServer((req, res) => {
        received.push(String(req.headers['x-webhook-id']));
        res.end('ok');
      });
      await Promise.all([tarpit, fast].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
    });
    after(() => {
      tarpit.closeAllConnections();
      tarpit.close();
      fast.close();
    });

    it("a receiver that never answers holds only its own merchant's deliveries", { timeout: 30_000 }, async () => {
      const { createMerchant } = await import('@/lib/merchants/service');
      const { createInvoice } = await import('@/lib/invoices/service');
      const { FixedRateSource } = await import('@/lib/rates/fixed');
      const { deliverNext } = await import('@/lib/webhooks/deliver');
      const rates = new FixedRateSource({ TRX: '0.25', USDT: '1' });
      const invoiceOf = async (email: string) => {
        const merchant = await createMerchant(prisma, { email, targetWalletAddress: 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd' });
        const invoice = await createInvoice(prisma, rates, merchant, {
          type: 'SINGLE', amountMicros: 1_000_000n, currencies: ['TRX'], expiryMinutes: undefined, clientCommission: false,
          orderId: null, webhookUrl: null, redirectUrl: null, description: null,
        });
        return { merchant, invoice };
      };
      const slow = await invoiceOf('slow@example.com');
      const other = await invoiceOf('other@example.com');
      const tarpitUrl = `http://127.0.0.1:${(tarpit.address() as { port: number }).port}/hook`;
      for (let i = 0; i < 40; i++) {
        await prisma.webhookDelivery.create({ data: { merchantId: slow.merchant.id, invoiceId: slow.invoice.id, eventKey: `slow:${i}`, url: tarpitUrl, payload: { i } } });
      }
      const late = await prisma.webhookDelivery.create({
        data: { merchantId: other.merchant.id, invoiceId: other.invoice.id, eventKey: 'other:1', url: `http://127.0.0.1:${(fast.address() as { port: number }).port}/hook`, payload: { ok: true } },
      });
      // The worker's four senders, each taking one delivery at once.
      await Promise.all(Array.from({ length: 4 }, () => deliverNext(prisma, { timeoutMs: 1_500, allowPrivate: true })));
      const delivered = await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: late.id } });
      assert.equal(delivered.status, 'DELIVERED', 'the other merchant was not queued behind the tarpit');
      assert.deepEqual(received, [String(late.id)]);
      const slowDone = await prisma.webhookDelivery.count({ where: { merchantId: slow.merchant.id, status: { not: 'PENDING' } } });
      assert.ok(slowDone <= 2, `at most two senders on one merchant, got ${slowDone}`);
    });
  });
});

describe('2. the target-wallet-changed e-mail', () => {
  it('is sent through SMTP_URL, and nothing happens without it', { timeout: 20_000 }, async () => {
    const { sendMail } = await import('@/lib/notify/mail');
    const { notifyTargetWalletChanged } = await import('@/lib/notify/walletChange');
    const { startSmtpSink } = await import('../helpers/smtp');
    // A minimal SMTP server: greets, says yes to every command, keeps the message.
    const smtp = await startSmtpSink();
    const { messages } = smtp;
    // The settings are passed as the web section of lib/config.ts would hold them (it is read once per process).
    const MAIL_FROM = 'no-reply@localhost';
    try {
      assert.equal(await sendMail({ to: 'm@example.com', subject: 's', text: 't' }, { MAIL_FROM }), false, 'no SMTP_URL: a no-op');
      const SMTP_URL = smtp.url;
      assert.equal(await notifyTargetWalletChanged({ email: 'merchant@example.com', previous: 'TOLD', current: 'TNEW', at: new Date('2026-11-23T10:00:00Z') }, { SMTP_URL, MAIL_FROM }), true);
      assert.equal(messages.length, 1);
      assert.match(messages[0]!, /To: merchant@example\.com/);
      assert.match(messages[0]!, /Subject: Your payout wallet was changed/);
      assert.match(messages[0]!, /Before: TOLD/);
      assert.match(messages[0]!, /Now: +TNEW/);
    } finally {
      smtp.close();
    }
  });
});
