import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import { TronWeb } from 'tronweb';
import { issueApiKey } from '@/lib/auth/apiKeys';
import { registerTestMerchant } from '../helpers/accounts';
import { createChain, type Chain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import { webhookSecret } from '@/lib/merchants/settings';
import { openApiDocument } from '@/lib/openapi/document';
import { startApp, TEST_MNEMONIC, type TestApp } from '../helpers/app';
import { startDevnetProcess, waitFor, type DevnetProcess } from '../helpers/devnet';
import { startHookReceiver, type HookReceiver } from '../helpers/http';
import { assertReconciled } from '../helpers/reconcile';
import { DashboardSession } from '../helpers/session';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp';
import { startWorker, type WorkerProcess } from '../helpers/worker';

const TRX = 1_000_000n;
const PASSWORD = 'held release pw';
const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;

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
    // The OpenAPI document's `webhooks` describe these bodies as they are sent (issue 38).
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema(openApiDocument(), 'openapi.json');
    const validate = ajv.getSchema('openapi.json#/components/schemas/PaymentHeldEvent') as ValidateFunction;
    for (const sent of [body, cancelBody]) assert.ok(validate(sent), `${ajv.errorsText(validate.errors)} in ${JSON.stringify(sent)}`);
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

  it('a return the node refuses for good ends at once with one alert and holds the payment again, releasable to another address; a smart contract is refused as the address (issue 34)', async () => {
    const email = `r-${randomBytes(5).toString('hex')}@example.com`;
    const m = await registerTestMerchant(app.prisma, { email, password: PASSWORD });
    await app.prisma.merchant.update({ where: { id: m.id }, data: { targetWalletAddress: randomAddress() } });
    const key = await issueApiKey(app.prisma, m.id, 'test');
    const browser = new DashboardSession(app.baseUrl);
    assert.equal(await browser.signIn(email, PASSWORD), null);
    const canceled = await invoice(key, ['TRX'], 'REFUSED-RETURN');
    assert.equal((await app.api(`/payment/${canceled.id}/cancel`, key, { method: 'DELETE' })).status, 200);
    await devnet.pay(canceled.address, '30', 'TRX');
    const held = await heldPayment(canceled.id);
    const release = (address: string) => browser.api(`/transactions/${held.trnHash}/release`, 'POST', { action: 'REFUND', address });

    // The devnet's USDT contract as the address: 400 naming it; nothing moves, the payment stays held.
    const contract = await release(devnet.usdtContract);
    assert.equal(contract.status, 400, contract.text);
    assert.match(contract.json.detail, /^address: This address is a smart contract/);
    assert.ok(contract.json.errors.address, contract.text);
    assert.equal((await app.prisma.transaction.findUniqueOrThrow({ where: { id: held.id } })).paymentState, 'HELD');

    // An ordinary address the node refuses for good (as java-tron refuses TRX to a contract): one attempt, one alert, held again.
    const refusing = randomAddress();
    await devnet.fault.refuse({ to: refusing });
    try {
      assert.equal((await release(refusing)).status, 200);
      const again = await waitFor('held again after the refusal', () => app.prisma.transaction.findFirst({ where: { id: held.id, paymentState: 'HELD', heldReason: { contains: refusing } } }), 60_000);
      assert.match(again.heldReason ?? '', /refund: refused for good by the node: CONTRACT_VALIDATE_ERROR: .*Cannot transfer TRX to a smartContract.*release it to another address/);
      const sends = await app.prisma.transaction.findMany({ where: { sourceId: held.id, sendPurpose: 'REFUND' } });
      assert.equal(sends.length, 1, 'one attempt, not rebuilt');
      assert.equal(sends[0]!.sendState, 'FAILED');
      assert.equal((await devnet.fault.list()).faults[0]?.hits.length, 1, 'broadcast once');
      assert.equal(worker.output().split('\n').filter((l) => l.includes('ALERT') && l.includes(`for payment ${held.id})`)).length, 1, 'one alert');
      assert.equal(await chain.getTrxBalance(canceled.address), 30n * TRX, 'the money is still at the address');
      assert.equal(await chain.getTrxBalance(refusing), 0n);
    } finally {
      await devnet.fault.clear();
    }

    // Released again to another address: returned there.
    const back = randomAddress();
    assert.equal((await release(back)).status, 200);
    const refunded = await waitFor('refunded to the other address', () => app.prisma.transaction.findFirst({ where: { id: held.id, paymentState: 'REFUNDED' } }), 60_000);
    const sent = await app.prisma.transaction.findFirstOrThrow({ where: { sourceId: refunded.id, sendPurpose: 'REFUND', sendState: 'CONFIRMED' } });
    assert.equal(sent.toAddress, back);
    assert.equal(await chain.getTrxBalance(back), sent.amountUnits);
    await assertReconciled(app.prisma, chain);
  });

  it('holds a payment rather than forward it to a target wallet that is a smart contract (set before such wallets were refused); a new wallet and a release forward it (issue 34)', async () => {
    const email = `c-${randomBytes(5).toString('hex')}@example.com`;
    const m = await registerTestMerchant(app.prisma, { email, password: PASSWORD });
    // A wallet stored before the dashboard asked the node (the column as an old version left it): USDT sent there would land and be lost.
    await app.prisma.merchant.update({ where: { id: m.id }, data: { targetWalletAddress: devnet.usdtContract } });
    const key = await issueApiKey(app.prisma, m.id, 'test');
    const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['USDT'], order_id: 'TO-CONTRACT' } });
    assert.equal(res.status, 200, res.text);
    const inv = res.json as { id: number; address: string; currencies_amounts: { USDT: number } };
    await devnet.pay(inv.address, String(inv.currencies_amounts.USDT), 'USDT');
    const held = await heldPayment(inv.id);
    assert.match(held.heldReason ?? '', new RegExp(`^cannot be sent: the target wallet ${devnet.usdtContract} is a smart contract`));
    assert.equal(await app.prisma.transaction.count({ where: { sourceId: held.id } }), 0, 'nothing sent, not even gas');
    assert.equal(await chain.getUsdtBalance(devnet.usdtContract), 0n, 'nothing reached the contract');
    assert.equal(await chain.getUsdtBalance(inv.address), held.amountUnits);

    const browser = new DashboardSession(app.baseUrl);
    assert.equal(await browser.signIn(email, PASSWORD), null);
    const wallet = randomAddress();
    assert.equal((await browser.api('/settings', 'PATCH', { target_wallet_address: wallet })).status, 200);
    assert.equal((await browser.api(`/transactions/${held.trnHash}/release`, 'POST', { action: 'FORWARD' })).status, 200);
    await waitFor('forwarded to the new wallet', () => app.prisma.transaction.findFirst({ where: { id: held.id, paymentState: 'SETTLED' } }), 90_000);
    assert.ok((await chain.getUsdtBalance(wallet)) > 0n, 'the new wallet received it');
  });

  it('an integrator lists held payments and releases them through /v1/api: returned to an address, forwarded, followed to the transfer (issue 36)', async () => {
    const { key, merchant: m } = await merchant(false);
    const { key: otherKey } = await merchant(false);
    const canceled = await invoice(key, ['TRX'], 'API-HELD-CANCELED');
    assert.equal((await app.api(`/payment/${canceled.id}/cancel`, key, { method: 'DELETE' })).status, 200);
    await devnet.pay(canceled.address, '20', 'TRX');
    const trxHeld = await heldPayment(canceled.id);
    const trxOnly = await invoice(key, ['TRX'], 'API-HELD-TOKEN');
    await devnet.pay(trxOnly.address, '10', 'USDT');
    const usdtHeld = await heldPayment(trxOnly.id);

    // The list: the merchant's held payments, newest first, the Transaction object with why and no release yet.
    const list = await app.api('/held_payment/list', key);
    assert.equal(list.status, 200, list.text);
    assert.equal(list.json.count, 2);
    assert.deepEqual(list.json.results.map((r: { trn_hash: string }) => r.trn_hash), [usdtHeld.trnHash, trxHeld.trnHash]);
    const [usdtRow, trxRow] = list.json.results;
    assert.deepEqual([usdtRow.type, usdtRow.currency, usdtRow.amount, usdtRow.invoice, usdtRow.held_reason, usdtRow.release], ['PAYMENT', 'USDT', 10, trxOnly.id, 'token', null]);
    assert.match(usdtRow.held.reason, /USDT/);
    assert.deepEqual([trxRow.currency, trxRow.amount, trxRow.invoice, trxRow.held_reason], ['TRX', 20, canceled.id, 'canceled']);
    assert.match(trxRow.held.reason, /cancel/i);
    assert.deepEqual((await app.api('/held_payment/list?currency=trx', key)).json.results.map((r: { trn_hash: string }) => r.trn_hash), [trxHeld.trnHash]);
    assert.deepEqual((await app.api(`/held_payment/list?invoice_id=${trxOnly.id}`, key)).json.results.map((r: { trn_hash: string }) => r.trn_hash), [usdtHeld.trnHash]);
    const page = await app.api('/held_payment/list?limit=1', key);
    assert.equal(page.json.results.length, 1);
    assert.match(page.json.next, /\/v1\/api\/held_payment\/list\?limit=1&offset=1$/);
    const badFilter = await app.api('/held_payment/list?currency=BTC', key);
    assert.equal(badFilter.status, 400);
    assert.match(badFilter.json.detail, /^currency: /);
    assert.equal((await app.api('/held_payment/list', otherKey)).json.count, 0, "another merchant's list is its own");
    assert.equal((await app.api('/held_payment/list', null)).status, 403);

    // One by hash; unknown, another merchant's, or a payment never held: 404.
    const one = await app.api(`/held_payment/${trxHeld.trnHash}`, key);
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.json, trxRow);
    for (const [hash, k] of [['f'.repeat(64), key], [trxHeld.trnHash, otherKey]] as const) {
      const missing = await app.api(`/held_payment/${hash}`, k);
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.json, { detail: 'No held payment with this hash.' });
    }

    // Bad releases are refused by name, and move nothing.
    const release = (hash: string, body: object, k = key, headers: Record<string, string> = {}) => app.api(`/held_payment/${hash}/release`, k, { method: 'POST', body, headers });
    for (const [body, field] of [[{}, 'action'], [{ action: 'BURN' }, 'action'], [{ action: 'REFUND' }, 'address'], [{ action: 'REFUND', address: 'nope' }, 'address'], [{ action: 'REFUND', address: devnet.usdtContract }, 'address']] as const) {
      const refused = await release(trxHeld.trnHash, body);
      assert.equal(refused.status, 400, `${JSON.stringify(body)}: ${refused.text}`);
      assert.match(refused.json.detail, new RegExp(`^${field}: `), JSON.stringify(body));
    }
    assert.equal((await release(trxHeld.trnHash, { action: 'FORWARD' }, otherKey)).status, 404, "another merchant's payment");
    assert.equal((await app.prisma.transaction.findUniqueOrThrow({ where: { id: trxHeld.id } })).paymentState, 'HELD');

    // Returned to an address (the action in either case), once for a repeated Idempotency-Key; a second release is refused.
    const back = randomAddress();
    const idem = { 'Idempotency-Key': `release-${trxHeld.id}` };
    const returned = await release(trxHeld.trnHash, { action: 'refund', address: back }, key, idem);
    assert.equal(returned.status, 200, returned.text);
    assert.deepEqual([returned.json.held, returned.json.held_reason], [null, null]);
    assert.deepEqual(returned.json.release, { action: 'REFUND', to_address: back, state: 'IN_PROGRESS', sent: null });
    const replay = await release(trxHeld.trnHash, { action: 'refund', address: back }, key, idem);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.json, returned.json);
    const twice = await release(trxHeld.trnHash, { action: 'REFUND', address: back });
    assert.equal(twice.status, 400);
    assert.equal(twice.json.detail, 'Only held funds can be released.');

    // Forwarded to the merchant's wallet.
    const forwarded = await release(usdtHeld.trnHash, { action: 'FORWARD' });
    assert.equal(forwarded.status, 200, forwarded.text);
    assert.deepEqual([forwarded.json.release.action, forwarded.json.release.state], ['FORWARD', 'IN_PROGRESS']);
    assert.equal((await app.api('/held_payment/list', key)).json.count, 0, 'nothing held any more');

    // Followed to the end through the API: the transfer that moved each, on chain where it says.
    const outcome = async (hash: string, state: string) =>
      waitFor(`${hash} ${state} through the API`, async () => {
        const res = await app.api(`/held_payment/${hash}`, key);
        return res.json.release?.state === state && res.json.release.sent ? res.json.release : null;
      }, 90_000);
    const trxOut = await outcome(trxHeld.trnHash, 'RETURNED');
    assert.equal(trxOut.to_address, back);
    const trxSend = await app.prisma.transaction.findFirstOrThrow({ where: { trnHash: trxOut.sent.trn_hash } });
    assert.deepEqual([trxSend.sourceId, trxSend.sendPurpose, trxSend.toAddress], [trxHeld.id, 'REFUND', back]);
    assert.equal(await chain.getTrxBalance(back), trxSend.amountUnits);
    const usdtOut = await outcome(usdtHeld.trnHash, 'FORWARDED');
    assert.equal(usdtOut.to_address, m.targetWalletAddress);
    assert.ok((await chain.getUsdtBalance(m.targetWalletAddress!)) > 0n, 'the wallet received it');
    await assertReconciled(app.prisma, chain);
  });

  it('a webhook endpoint that keeps failing brings one e-mail per run of failures, at the third failure in a row (issue 38)', async () => {
    const down = await startHookReceiver({ down: true });
    try {
      const email = `w-${randomBytes(5).toString('hex')}@example.com`;
      const m = await registerTestMerchant(app.prisma, { email, password: PASSWORD });
      await app.prisma.merchant.update({ where: { id: m.id }, data: { targetWalletAddress: randomAddress(), webhookUrl: down.url } });
      const key = await issueApiKey(app.prisma, m.id, 'test');
      const browser = new DashboardSession(app.baseUrl);
      assert.equal(await browser.signIn(email, PASSWORD), null);
      const mails = () => smtp.messages.filter((msg) => msg.includes(`Webhook deliveries to ${down.url} are failing`));
      const failed = (n: number) => waitFor(`${n} failed deliveries`, async () => (await app.prisma.webhookDelivery.count({ where: { merchantId: m.id, status: 'FAILED' } })) === n || null, 60_000);
      const resend = async () => {
        const first = await app.prisma.webhookDelivery.findFirstOrThrow({ where: { merchantId: m.id }, orderBy: { id: 'asc' } });
        assert.equal((await browser.api(`/webhooks/${first.id}/resend`, 'POST')).status, 200);
      };

      // A real COMPLETED webhook to an endpoint that is down, then the merchant resends it: failures in a row.
      const inv = await invoice(key, ['TRX'], 'HOOK-DOWN');
      await devnet.pay(inv.address, String((await app.api(`/payment/get/${inv.id}`, key)).json.currencies_amounts.TRX), 'TRX');
      await failed(1);
      await resend();
      await failed(2);
      assert.equal(mails().length, 0, 'no e-mail for two failures');
      await resend();
      await failed(3);
      const [mail] = await waitFor('the e-mail about the failing endpoint', async () => (mails().length ? mails() : null), 30_000);
      assert.match(mail!, /The last 3 webhook deliveries to .* failed/);
      assert.match(mail!, /The last answer: connect ECONNREFUSED/);
      assert.match(mail!, /Retries are off, so a failed event is not sent again/);
      assert.match(mail!, /https:\/\/pay\.example\.com\/dashboard\/webhooks/);
      // A fourth failure in the same run: no second e-mail (counted at the end, with the next run's).
      await resend();
      await failed(4);
      // Accepted once, then failing again: a new run, a new e-mail at its third failure.
      await down.up();
      await resend();
      await waitFor('a delivery accepted', async () => (await app.prisma.webhookDelivery.count({ where: { merchantId: m.id, status: 'DELIVERED' } })) === 1 || null, 30_000);
      await down.down();
      for (const n of [5, 6]) {
        await resend();
        await failed(n);
      }
      assert.equal(mails().length, 1, 'the fourth failure and two of the new run: still one e-mail');
      await resend();
      await failed(7);
      await waitFor('the second run\'s e-mail', async () => mails().length === 2 || null, 30_000);
      assert.equal(await app.prisma.mailOutbox.count({ where: { merchantId: m.id } }), 2);
    } finally {
      down.close();
    }
  });

  it('balances the books after the holds (npm run reconcile)', async () => {
    await assertReconciled(app.prisma, chain);
  });
});
