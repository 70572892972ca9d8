import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { TronWeb } from 'tronweb';
import { createChain, type Chain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import { webhookSecret } from '@/lib/merchants/settings';
import { startApp, TEST_MNEMONIC, type TestApp } from './helpers/app';
import { startDevnetProcess, waitFor, type DevnetProcess } from './helpers/devnet';
import { startHookReceiver, type HookReceiver } from './helpers/http';
import { assertReconciled } from './helpers/reconcile';
import { startSmtpSink, type SmtpSink } from './helpers/smtp';
import { startWorker, type WorkerProcess } from './helpers/worker';

const TRX = 1_000_000n;

/**
 * Held money is never silent (issue 26): the moment the real worker holds a payment (a token the
 * invoice does not accept, a canceled invoice) the merchant gets an e-mail through SMTP_URL, and,
 * having opted in, a signed "payment.held" webhook with the Transaction object and the reason.
 * Not opted in, the e-mail still comes and no event is sent: a spec client sees only spec 6's
 * statuses. Real devnet transfers; nothing is written to the database by the test but settings.
 */
describe('a held payment is told to the merchant', () => {
  let devnet: DevnetProcess;
  let app: TestApp;
  let worker: WorkerProcess;
  let chain: Chain;
  let smtp: SmtpSink;
  let receiver: HookReceiver;

  before(async () => {
    smtp = await startSmtpSink();
    receiver = await startHookReceiver();
    devnet = await startDevnetProcess({ blockMs: 100, solidifiedDepth: 3 });
    app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract, PUBLIC_BASE_URL: 'https://pay.example.com' });
    chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
    await devnet.pay(deriveAccount(TEST_MNEMONIC, 0, 'gas').address, '10000', 'TRX');
    worker = startWorker(app.env, devnet, { SMTP_URL: smtp.url, MAIL_FROM: 'payments@pay.example.com' });
  });

  after(async () => {
    await worker?.stop();
    await app?.stop();
    await devnet?.stop();
    receiver?.close();
    smtp?.close();
  });

  async function merchant(heldEvents: boolean) {
    const { merchant: m, key } = await app.createMerchant({ targetWallet: (TronWeb.createRandom() as unknown as { address: string }).address });
    const updated = await app.prisma.merchant.update({ where: { id: m.id }, data: { webhookUrl: receiver.url, webhookHeldEvents: heldEvents } });
    return { merchant: updated, key };
  }
  async function invoice(key: string, currencies: string[], orderId: string) {
    const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies, order_id: orderId } });
    assert.equal(res.status, 200, res.text);
    return res.json as { id: number; address: string };
  }
  const heldPayment = (invoiceId: number) =>
    waitFor(`a held payment on invoice ${invoiceId}`, () => app.prisma.transaction.findFirst({ where: { invoiceId, type: 'PAYMENT', paymentState: 'HELD' } }), 60_000);
  const mailFor = (invoiceId: number) => waitFor(`the e-mail about invoice ${invoiceId}`, async () => smtp.messages.find((m) => m.includes(`on invoice #${invoiceId}`)), 60_000);
  const hooksFor = (trnHash: string) => receiver.hooks.filter((h) => JSON.parse(h.body).trn_hash === trnHash);

  it('opted in: a USDT payment to a TRX-only invoice and a payment to a canceled invoice each bring an e-mail and a signed payment.held event', async () => {
    const { merchant: m, key } = await merchant(true);
    const verifier = new Webhook(webhookSecret(m), { format: 'raw' });

    const trxOnly = await invoice(key, ['TRX'], 'HELD-TOKEN');
    await devnet.pay(trxOnly.address, '10', 'USDT');
    const token = await heldPayment(trxOnly.id);
    const tokenMail = await mailFor(trxOnly.id);
    assert.match(tokenMail, new RegExp(`^To: ${m.email}$`, 'm'));
    assert.match(tokenMail, new RegExp(`^Subject: Payment held for you: 10 USDT on invoice #${trxOnly.id}$`, 'm'));
    assert.match(tokenMail, /order HELD-TOKEN/);
    assert.match(tokenMail, /the invoice does not accept that token/);
    assert.match(tokenMail, new RegExp(`https://pay\\.example\\.com/dashboard/invoices/${trxOnly.id}`));
    assert.match(tokenMail, new RegExp(token.trnHash));

    const [tokenHook] = await waitFor('the payment.held webhook (token)', async () => (hooksFor(token.trnHash).length ? hooksFor(token.trnHash) : null), 30_000);
    // Signed like every webhook: a Standard Webhooks library accepts it with the merchant's secret.
    const body = verifier.verify(tokenHook!.body, tokenHook!.headers as Record<string, string>) as Record<string, unknown>;
    assert.equal(tokenHook!.headers['webhook-id'], `payment:${token.id}:held:1`);
    assert.deepEqual(
      { ...body, created_at: undefined, event_id: undefined },
      {
        event: 'payment.held', held_reason: 'token',
        trn_hash: token.trnHash, invoice: trxOnly.id, type: 'PAYMENT', from_address: token.fromAddress, to_address: trxOnly.address,
        amount: 10, currency: 'USDT', aml_check: null, held: { reason: token.heldReason }, event_id: undefined, created_at: undefined,
      },
    );

    const canceled = await invoice(key, ['TRX'], 'HELD-CANCELED');
    assert.equal((await app.api(`/payment/${canceled.id}/cancel`, key, { method: 'DELETE' })).status, 200);
    await devnet.pay(canceled.address, '30', 'TRX');
    const late = await heldPayment(canceled.id);
    const cancelMail = await mailFor(canceled.id);
    assert.match(cancelMail, new RegExp(`^Subject: Payment held for you: 30 TRX on invoice #${canceled.id}$`, 'm'));
    assert.match(cancelMail, /it arrived after the invoice was canceled/);
    const [cancelHook] = await waitFor('the payment.held webhook (canceled)', async () => (hooksFor(late.trnHash).length ? hooksFor(late.trnHash) : null), 30_000);
    const cancelBody = verifier.verify(cancelHook!.body, cancelHook!.headers as Record<string, string>) as Record<string, unknown>;
    assert.equal(cancelBody.held_reason, 'canceled');
    assert.equal(cancelBody.amount, 30);
    // No invoice webhook: a canceled invoice's status does not change (spec 6).
    assert.equal(receiver.hooks.filter((h) => JSON.parse(h.body).id === canceled.id).length, 0);
    // The delivery log has the event, marked as such, with what the receiver answered.
    const delivery = await waitFor('the delivery recorded', () => app.prisma.webhookDelivery.findFirst({ where: { eventKey: `payment:${late.id}:held:1`, status: 'DELIVERED' } }));
    assert.equal(delivery.responseStatus, 200);
    assert.equal(delivery.responseBody, 'ok');
    assert.equal(await chain.getTrxBalance(canceled.address), 30n * TRX, 'held, not moved');
  });

  it('not opted in: the e-mail comes, and no payment.held event is queued or sent', async () => {
    const { key } = await merchant(false);
    const canceled = await invoice(key, ['TRX'], 'QUIET-1');
    assert.equal((await app.api(`/payment/${canceled.id}/cancel`, key, { method: 'DELETE' })).status, 200);
    await devnet.pay(canceled.address, '25', 'TRX');
    const held = await heldPayment(canceled.id);
    await mailFor(canceled.id);
    // The mail is queued in the same transaction an event would be: by now there would be one.
    // The receiver has the mail before the worker has read the server's answer and marked it sent: waited for.
    await waitFor('the mail marked sent', async () => ((await app.prisma.mailOutbox.findUniqueOrThrow({ where: { eventKey: `payment:${held.id}:held:1` } })).status === 'SENT' ? true : null), 30_000);
    assert.equal(await app.prisma.webhookDelivery.count({ where: { invoiceId: canceled.id } }), 0);
    assert.deepEqual(hooksFor(held.trnHash), []);
  });

  it('balances the books after the holds (npm run reconcile)', async () => {
    await assertReconciled(app.prisma, chain);
  });
});
