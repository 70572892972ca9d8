import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TronWeb } from 'tronweb';
import { createChain, type Chain } from '@/lib/chain';
import { SOLIDIFIED_CURSOR } from '@/lib/db/chainCursors';
import { deriveAccount } from '@/lib/chain/keys';
import { masterKeyRing } from '@/lib/crypto/masterKey';
import { open } from '@/lib/crypto/secretBox';
import { Webhook } from 'standardwebhooks';
import { standardWebhooksSecret, verifyWebhook } from '@/lib/webhooks/signature';
import { startApp, TEST_MNEMONIC, type TestApp } from '../helpers/app';
import { devnetControl, startDevnetProcess, waitFor, type DevnetProcess } from '../helpers/devnet';
import { asked, beatWindow } from '../helpers/heartbeat';
import { httpRequest, startHookReceiver, type HookReceiver, type ReceivedHook } from '../helpers/http';
import { assertReconciled } from '../helpers/reconcile';
import { startWorker, type WorkerProcess } from '../helpers/worker';

const TRX = 1_000_000n;


describe('worker: detection, AML, forwarding, statuses and webhooks on the devnet', () => {
  let devnet: DevnetProcess;
  let app: TestApp;
  let worker: WorkerProcess;
  let chain: Chain;
  let receiver: HookReceiver;
  const flagged = TronWeb.createRandom() as unknown as { address: string; privateKey: string };

  const pay = (address: string, amount: string, currency: 'TRX' | 'USDT') => devnet.pay(address, amount, currency);

  async function newMerchant(opts: { aml?: boolean } = {}) {
    const target = TronWeb.createRandom() as unknown as { address: string };
    const { merchant, key } = await app.createMerchant({ targetWallet: target.address });
    await app.prisma.merchant.update({ where: { id: merchant.id }, data: { webhookUrl: receiver.url, amlCheck: opts.aml ?? false, amlRiskLimit: '50' } });
    return { merchant, key, target: target.address };
  }

  async function invoice(key: string, body: object) {
    const res = await app.api('/payment/create', key, { method: 'POST', body });
    assert.equal(res.status, 200, res.text);
    return res.json as { id: number; address: string; currencies_amounts: Record<string, number> };
  }

  const statusOf = async (key: string, id: number) => (await app.api(`/payment/get/${id}`, key)).json;
  const waitStatus = async (key: string, id: number, status: string) => {
    try {
      return await waitFor(`invoice ${id} to be ${status}`, async () => ((await statusOf(key, id)).status === status ? statusOf(key, id) : null), 30_000);
    } catch (err) {
      const rows = await app.prisma.transaction.findMany({ where: { invoiceId: id } });
      throw new Error(`${(err as Error).message}; invoice is ${JSON.stringify(await statusOf(key, id))}; transactions ${JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`);
    }
  };
  const hooksFor = (id: number) => receiver.hooks.filter((h) => JSON.parse(h.body).id === id);
  async function assertSigned(merchantId: number, hook: ReceivedHook) {
    const secret = open(masterKeyRing(), (await app.prisma.merchant.findUniqueOrThrow({ where: { id: merchantId } })).webhookSecretEnc);
    assert.ok(verifyWebhook(secret, hook.body, String(hook.headers['x-webhook-signature'])), `signature of ${hook.headers['idempotency-key']} verifies`);
    // Standard Webhooks: the receiver's library verifies the same delivery; the id is the event.
    assert.equal(JSON.stringify(new Webhook(standardWebhooksSecret(secret)).verify(hook.body, hook.headers as Record<string, string>)), hook.body);
    assert.equal(hook.headers['webhook-id'], hook.headers['idempotency-key']);
  }

  before(async () => {
    receiver = await startHookReceiver();
    devnet = await startDevnetProcess({ blockMs: 100, solidifiedDepth: 3 });
    app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
    chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
    // The service's gas wallet pays the energy of USDT forwarding; the faucet funds it.
    await pay(deriveAccount(TEST_MNEMONIC, 0, 'gas').address, '10000', 'TRX');
    await pay(flagged.address, '500', 'TRX');
    // The devnet's payer contract is flagged too: TRX a contract paid, failing AML, has no wallet to go back to.
    const { payerContract } = await devnetControl<{ payerContract: string }>(devnet.url, 'GET', 'info');
    worker = startWorker(app.env, devnet, { AML_FLAGGED_ADDRESSES: `${flagged.address},${payerContract}`, AML_CHECK_COST_TRX: '0.5' });
  });

  after(async () => {
    if (process.env.DEBUG_WORKER) (await import('node:fs')).writeFileSync(process.env.DEBUG_WORKER, worker?.output() ?? '');
    await worker?.stop();
    await app?.stop();
    await devnet?.stop();
    receiver?.close();
  });

  it('an idle worker reads the blocks of each scanner with one request a read, asking neither the head nor the solidified head (issue 37)', async () => {
    /** The worker's requests by endpoint, as its heartbeat last wrote them (every 5 s). */
    // Past its start (the scanners' cursors set, the gas wallet's funding booked) and a heartbeat written after that.
    await waitFor('the scanners started', async () => ((await app.prisma.chainCursor.count()) === 2 ? true : null), 60_000);
    const { first, later } = await beatWindow(app.prisma, new Date());
    const { delta, seen } = asked(first, later);
    // Each read asks for the blocks after the cursor, as many as there are: the head scanner of the node's head chain,
    // the scanner of solidified blocks of its solidity interface, which answers only solidified ones.
    assert.ok(delta('wallet/getblockbylimitnext') > 0 && delta('walletsolidity/getblockbylimitnext') > 0, `both scanners read blocks: ${seen}`);
    assert.equal(delta('wallet/getblock'), 0, `the head is not asked before the blocks: ${seen}`);
    assert.equal(delta('walletsolidity/getblock'), 0, `nor the solidified head: ${seen}`);
  });

  it('completes an exactly paid TRX invoice, forwards to the sun and sends one signed webhook', async () => {
    const { merchant, key, target } = await newMerchant();
    const inv = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'], order_id: 'trx-exact' });
    assert.deepEqual(inv.currencies_amounts, { TRX: 40 });
    const txid = await pay(inv.address, '40', 'TRX');
    const done = await waitStatus(key, inv.id, 'COMPLETED');
    assert.deepEqual(done.transfer_amounts.input, { TRX: 40 });
    assert.equal(done.cost, 0.4);

    const rows = await app.prisma.transaction.findMany({ where: { invoiceId: inv.id }, orderBy: { id: 'asc' } });
    const payment = rows.find((r) => r.type === 'PAYMENT');
    const transfer = rows.find((r) => r.type === 'TRANSFER');
    assert.ok(payment && transfer);
    assert.equal(payment.trnHash, txid);
    assert.equal(payment.amountUnits, 40n * TRX);
    assert.equal(transfer.eventId, payment.eventId, 'incoming and outgoing share the event id');
    assert.equal(transfer.toAddress, target);
    assert.equal(transfer.sendState, 'CONFIRMED');
    // Forwarded = paid - 1 % fee - the network fee (here: activating the new target wallet).
    assert.equal(transfer.amountUnits + (transfer.feeSun ?? 0n), 40n * TRX - 400_000n);
    assert.equal(done.transfer_amounts.output.TRX * 1e6, Number(transfer.amountUnits));
    await waitFor('target balance', async () => (await chain.getTrxBalance(target)) === transfer.amountUnits);

    const [hook] = await waitFor('webhook', async () => (hooksFor(inv.id).length ? hooksFor(inv.id) : null));
    assert.ok(hook);
    const secret = open(masterKeyRing(), (await app.prisma.merchant.findUniqueOrThrow({ where: { id: merchant.id } })).webhookSecretEnc);
    assert.ok(verifyWebhook(secret, hook.body, String(hook.headers['x-webhook-signature'])), 'signature verifies');
    assert.ok(!verifyWebhook(secret, hook.body.replace('COMPLETED', 'OVERPAID'), String(hook.headers['x-webhook-signature'])));
    assert.equal(hook.headers['idempotency-key'], `invoice:${inv.id}:COMPLETED`);
    assert.equal(JSON.parse(hook.body).status, 'COMPLETED');
    assert.equal(JSON.parse(hook.body).order_id, 'trx-exact');
    // The receiver has the request before the worker has read the answer and recorded it.
    const delivery = await waitFor('the delivery recorded', async () => {
      const d = await app.prisma.webhookDelivery.findFirstOrThrow({ where: { invoiceId: inv.id } });
      return d.status !== 'SENDING' ? d : null;
    });
    assert.equal(delivery.status, 'DELIVERED');
    assert.equal(delivery.responseStatus, 200);
    assert.ok(delivery.latencyMs !== null && delivery.latencyMs >= 0);
  });

  it('forwards USDT with gas from the service wallet, charged to the activation balance', async () => {
    const { merchant, key, target } = await newMerchant();
    const inv = await invoice(key, { type: 'SINGLE', amount: 25, currencies: ['USDT'], client_comission: true });
    assert.deepEqual(inv.currencies_amounts, { USDT: 25.25 });
    await pay(inv.address, '25.25', 'USDT');
    const done = await waitStatus(key, inv.id, 'COMPLETED');
    assert.equal(done.cost, 0.25);
    const rows = await app.prisma.transaction.findMany({ where: { invoiceId: inv.id } });
    const gas = rows.find((r) => r.sendPurpose === 'FORWARD_GAS');
    const transfer = rows.find((r) => r.type === 'TRANSFER');
    assert.ok(gas && transfer, JSON.stringify(rows.map((r) => r.type)));
    assert.equal(transfer.amountUnits, 25_000_000n, 'the merchant gets the invoice amount; the client paid the fee');
    assert.equal(await chain.getUsdtBalance(target), 25_000_000n);
    // Charged what the network burned (the gas send and the forward), not the unburned margin.
    const m = await app.prisma.merchant.findUniqueOrThrow({ where: { id: merchant.id } });
    const burned = (gas.feeSun ?? 0n) + (transfer.feeSun ?? 0n);
    assert.ok((transfer.feeSun ?? 0n) > 0n && gas.amountUnits > (transfer.feeSun ?? 0n), 'the gas covered the burn with a margin');
    assert.equal(m.activationBalanceSun, -burned);
    // The unburned margin goes back to the gas wallet: a single-use address is never paid again (docs/worker.md, "Gas returned").
    const back = await waitFor('the margin returned', () => app.prisma.transaction.findFirst({ where: { sourceId: transfer.sourceId, sendPurpose: 'GAS_RETURN', sendState: 'CONFIRMED' } }));
    assert.equal(back.amountUnits + (back.feeSun ?? 0n), gas.amountUnits - (transfer.feeSun ?? 0n), 'exactly the margin');
    assert.equal(await chain.getTrxBalance(inv.address), 0n);
    assert.equal((await app.prisma.merchant.findUniqueOrThrow({ where: { id: merchant.id } })).activationBalanceSun, -burned, 'the return is not charged to the merchant');
  });

  it('marks over- and underpayment, and completes an underpaid invoice when the rest arrives late', async () => {
    const { merchant, key, target } = await newMerchant();
    const over = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
    await pay(over.address, '50', 'TRX');
    const overDone = await waitStatus(key, over.id, 'OVERPAID');
    assert.deepEqual(overDone.transfer_amounts.input, { TRX: 50 });
    const overSent = await app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: over.id, type: 'TRANSFER' } });
    assert.equal(overSent.amountUnits + (overSent.feeSun ?? 0n), 50n * TRX - 500_000n, 'all of it forwarded, less the 1 % fee and the network fee');
    await waitFor('overpaid funds at the merchant', async () => (await chain.getTrxBalance(target)) === overSent.amountUnits);
    const [overHook] = await waitFor('OVERPAID webhook', async () => (hooksFor(over.id).length ? hooksFor(over.id) : null));
    assert.equal(JSON.parse(overHook!.body).status, 'OVERPAID');
    await assertSigned(merchant.id, overHook!);

    const under = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
    await pay(under.address, '20', 'TRX');
    await waitFor('partial payment settled', async () => (await statusOf(key, under.id)).transfer_amounts.input.TRX === 20);
    assert.equal((await statusOf(key, under.id)).status, 'ACTIVE', 'a partial payment keeps the invoice open until it expires');
    await app.prisma.invoice.update({ where: { id: under.id }, data: { expiredAt: new Date(Date.now() - 1000) } });
    await waitStatus(key, under.id, 'UNDERPAID');
    await pay(under.address, '20', 'TRX');
    const completed = await waitStatus(key, under.id, 'COMPLETED');
    assert.deepEqual(completed.transfer_amounts.input, { TRX: 40 });
    const events = hooksFor(under.id).map((h) => JSON.parse(h.body).status);
    await waitFor('both webhooks', async () => hooksFor(under.id).length === 2);
    assert.deepEqual(hooksFor(under.id).map((h) => JSON.parse(h.body).status), ['UNDERPAID', 'COMPLETED'], String(events));
    for (const hook of hooksFor(under.id)) await assertSigned(merchant.id, hook);
    const forwarded = await app.prisma.transaction.aggregate({ where: { invoiceId: under.id, type: 'TRANSFER' }, _sum: { amountUnits: true } });
    await waitFor('both parts at the merchant', async () => (await chain.getTrxBalance(target)) === overSent.amountUnits + (forwarded._sum.amountUnits ?? 0n));
  });

  it("completes an invoice paid within the merchant's underpayment tolerance, as it stood when the invoice was created (issue 36)", async () => {
    const { merchant, key } = await newMerchant();
    // Created before the merchant accepts underpayments: its status follows the tolerance it was created with (none).
    const before = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
    await app.prisma.merchant.update({ where: { id: merchant.id }, data: { underpaymentTolerancePercent: '2' } });
    const tolerant = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
    assert.deepEqual([before.currencies_amounts.TRX, tolerant.currencies_amounts.TRX], [40, 40]);
    // 1.75 % short, as an exchange that takes its withdrawal fee out of the amount sends.
    await pay(tolerant.address, '39.3', 'TRX');
    await pay(before.address, '39.3', 'TRX');
    const completed = await waitStatus(key, tolerant.id, 'COMPLETED');
    assert.deepEqual(completed.transfer_amounts.input, { TRX: 39.3 });
    await waitFor('the COMPLETED webhook', async () => hooksFor(tolerant.id).length === 1);
    assert.equal(JSON.parse(hooksFor(tolerant.id)[0]!.body).status, 'COMPLETED');
    await waitFor('the other payment settled', async () => (await statusOf(key, before.id)).transfer_amounts.input.TRX === 39.3);
    assert.equal((await statusOf(key, before.id)).status, 'ACTIVE', 'the same shortfall keeps an invoice created without the tolerance open');
    await app.prisma.invoice.update({ where: { id: before.id }, data: { expiredAt: new Date(Date.now() - 1000) } });
    await waitStatus(key, before.id, 'UNDERPAID');
  });

  it('judges expiry by chain time: a payment in a block before expired_at is never reported late', async () => {
    const { key } = await newMerchant();
    const inv = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
    const txid = await pay(inv.address, '40', 'TRX');
    await waitFor('payment in a block', async () => (await chain.getTransactionStatus(txid)).blockNumber);
    // The wall clock passes expired_at while the payment's block is not yet final (and so not yet seen).
    await app.prisma.invoice.update({ where: { id: inv.id }, data: { expiredAt: new Date() } });
    await waitStatus(key, inv.id, 'COMPLETED');
    await waitFor('webhook', async () => hooksFor(inv.id).length > 0);
    await new Promise((r) => setTimeout(r, 1_000));
    assert.deepEqual(hooksFor(inv.id).map((h) => JSON.parse(h.body).status), ['COMPLETED'], 'no TIMEOUT before the payment counted');
  });

  it('times out an unpaid invoice, then still forwards and records a late payment', async () => {
    const { key, target } = await newMerchant();
    const inv = await invoice(key, { type: 'SINGLE', amount: 5, currencies: ['TRX'] });
    await app.prisma.invoice.update({ where: { id: inv.id }, data: { expiredAt: new Date(Date.now() - 1000) } });
    await waitStatus(key, inv.id, 'TIMEOUT');
    await pay(inv.address, '20', 'TRX');
    await waitStatus(key, inv.id, 'COMPLETED');
    const transfer = await app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: inv.id, type: 'TRANSFER' } });
    await waitFor('late funds at the merchant', async () => (await chain.getTrxBalance(target)) === transfer.amountUnits);
    await waitFor('both webhooks', async () => hooksFor(inv.id).length === 2);
    assert.deepEqual(hooksFor(inv.id).map((h) => JSON.parse(h.body).status), ['TIMEOUT', 'COMPLETED']);
  });

  it('forwards every payment to a MULTIPLE invoice, keeps it open, and sends a webhook per payment', async () => {
    const { key } = await newMerchant();
    const inv = await invoice(key, { type: 'MULTIPLE', currencies: ['TRX', 'USDT'] });
    await pay(inv.address, '7', 'TRX');
    // 30 USDT: a forward to a new holder burns ~15.6 TRX (about 3.9 USDT), so a few USDT would be held as uneconomic.
    await pay(inv.address, '30', 'USDT');
    await waitFor('two payment webhooks', async () => hooksFor(inv.id).length === 2, 30_000);
    const state = await statusOf(key, inv.id);
    assert.equal(state.status, 'ACTIVE');
    assert.deepEqual(state.transfer_amounts.input, { TRX: 7, USDT: 30 });
    const keys = hooksFor(inv.id).map((h) => String(h.headers['idempotency-key']));
    assert.equal(new Set(keys).size, 2);
    assert.ok(keys.every((k) => k.startsWith(`invoice:${inv.id}:payment:`)));
    assert.equal(await app.prisma.transaction.count({ where: { invoiceId: inv.id, type: 'TRANSFER', sendState: 'CONFIRMED' } }), 2);
  });

  it('returns a flagged payment to a MULTIPLE invoice and keeps the static address open for the next payer', async () => {
    const { merchant, key, target } = await newMerchant({ aml: true });
    const inv = await invoice(key, { type: 'MULTIPLE', currencies: ['TRX'] });
    const signed = await chain.buildSignedTrxTransfer(flagged.privateKey, inv.address, 30n * TRX);
    await chain.broadcast(signed.signedTx);
    await waitFor('refund landed', () => app.prisma.transaction.findFirst({ where: { invoiceId: inv.id, type: 'TRANSFER', toAddress: flagged.address, sendState: 'CONFIRMED' } }), 30_000);
    const [refundHook] = await waitFor('per-payment webhook for the refund', async () => (hooksFor(inv.id).length ? hooksFor(inv.id) : null));
    assert.equal(JSON.parse(refundHook!.body).status, 'ACTIVE');
    await assertSigned(merchant.id, refundHook!);
    assert.equal((await statusOf(key, inv.id)).status, 'ACTIVE', 'one flagged payer does not close a static address');

    await pay(inv.address, '12', 'TRX');
    await waitFor('second webhook', async () => hooksFor(inv.id).length === 2, 30_000);
    const state = await statusOf(key, inv.id);
    assert.equal(state.status, 'ACTIVE');
    assert.deepEqual(state.transfer_amounts.input, { TRX: 12 }, 'the returned payment is not counted as received');
    const forward = await app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: inv.id, type: 'TRANSFER', toAddress: target } });
    await waitFor('clean payment at the merchant', async () => (await chain.getTrxBalance(target)) === forward.amountUnits);
  });

  it('returns a flagged sender\'s payment minus network cost: AML_FAILED with the check recorded', async () => {
    const { merchant, key } = await newMerchant({ aml: true });
    const inv = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
    const before = await chain.getTrxBalance(flagged.address);
    const signed = await chain.buildSignedTrxTransfer(flagged.privateKey, inv.address, 40n * TRX);
    await chain.broadcast(signed.signedTx);
    const failed = await waitStatus(key, inv.id, 'AML_FAILED');
    assert.equal(failed.status, 'AML_FAILED');
    const payment = await app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: inv.id, type: 'PAYMENT' } });
    const check = payment.amlCheck as Record<string, unknown>;
    assert.equal(check.status, 'FAILED');
    assert.equal(check.risk_score, 90);
    assert.equal(check.risk_level, 'high');
    assert.equal(check.cost, 0.5);
    assert.equal(check.completed, true);
    const back = await app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: inv.id, type: 'TRANSFER' } });
    assert.equal(back.toAddress, flagged.address);
    assert.equal(back.amountUnits + (back.feeSun ?? 0n), 40n * TRX);
    const paidFee = (await chain.getTransactionStatus(signed.txId)).feeSun;
    await waitFor('refund at the sender', async () => (await chain.getTrxBalance(flagged.address)) === before - 40n * TRX - paidFee + back.amountUnits);
    assert.equal((await app.prisma.merchant.findUniqueOrThrow({ where: { id: merchant.id } })).balanceSun, -500_000n, 'AML cost charged in TRX');
    const viaApi = (await app.api(`/transaction/${signed.txId}`, key)).json;
    assert.equal(viaApi.type, 'PAYMENT');
    assert.equal(viaApi.aml_check.status, 'FAILED');
    assert.equal(viaApi.event_id, back.eventId);
    const listed = (await app.api(`/transaction/list?invoice_id=${inv.id}&ordering=created_at`, key)).json;
    assert.deepEqual(listed.results.map((r: { type: string }) => r.type), ['PAYMENT', 'TRANSFER']);
    await waitFor('AML webhook', async () => hooksFor(inv.id).some((h) => JSON.parse(h.body).status === 'AML_FAILED'));
  });

  it('credits merchant top-ups to the fee and activation balances', async () => {
    const { merchant, key } = await newMerchant();
    await pay(merchant.topupWalletAddress, '12.5', 'TRX');
    await pay(merchant.activationWalletAddress, '3', 'TRX');
    const account = await waitFor('credited', async () => {
      const m = (await app.api('/merchant', key)).json;
      return m.balance === 12.5 && m.activation_balance === 3 ? m : null;
    });
    assert.equal(account.balance, 12.5);
    assert.equal(await app.prisma.transaction.count({ where: { merchantId: merchant.id, type: 'TOPUP' } }), 2);
  });

  it('rides out a node outage with backoff and then settles the payment', async () => {
    const { key, target } = await newMerchant();
    const inv = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
    const txid = await pay(inv.address, '40', 'TRX');
    await waitFor('payment in a block', async () => (await chain.getTransactionStatus(txid)).blockNumber);
    // A power cut on the node: every worker call fails until it is back (same port, same chain).
    await devnet.restart({ crash: true });
    await waitStatus(key, inv.id, 'COMPLETED');
    const transfer = await app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: inv.id, type: 'TRANSFER' } });
    await waitFor('funds at the merchant', async () => (await chain.getTrxBalance(target)) === transfer.amountUnits);
    assert.equal(await app.prisma.transaction.count({ where: { invoiceId: inv.id, type: 'TRANSFER' } }), 1);
  });

  it('survives a SIGKILL mid-forward: no double send, no lost payment', async () => {
    const { key, target } = await newMerchant();
    const inv = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
    await pay(inv.address, '40', 'TRX');
    await waitFor('a forward in flight', () => app.prisma.transaction.findFirst({ where: { invoiceId: inv.id, type: 'TRANSFER', sendState: { in: ['SIGNED', 'BROADCAST'] } } }), 30_000);
    await worker.kill();
    // The devnet's payer contract is flagged too: TRX a contract paid, failing AML, has no wallet to go back to.
    const { payerContract } = await devnetControl<{ payerContract: string }>(devnet.url, 'GET', 'info');
    worker = startWorker(app.env, devnet, { AML_FLAGGED_ADDRESSES: `${flagged.address},${payerContract}`, AML_CHECK_COST_TRX: '0.5' });
    const done = await waitStatus(key, inv.id, 'COMPLETED');
    const transfers = await app.prisma.transaction.findMany({ where: { invoiceId: inv.id, type: 'TRANSFER' } });
    assert.equal(transfers.length, 1, 'exactly one send was ever built');
    assert.equal(transfers[0]?.sendState, 'CONFIRMED');
    await waitFor('funds at the merchant once', async () => (await chain.getTrxBalance(target)) === transfers[0]?.amountUnits);
    assert.deepEqual(done.transfer_amounts.input, { TRX: 40 });
  });

  it('two workers at once process each payment exactly once', async () => {
    const second = startWorker(app.env, devnet, { AML_FLAGGED_ADDRESSES: flagged.address });
    try {
      const { key } = await newMerchant();
      const invoices = await Promise.all(Array.from({ length: 6 }, (_, i) => invoice(key, { type: 'SINGLE', amount: 10 + i, currencies: [i % 2 ? 'USDT' : 'TRX'] })));
      for (const inv of invoices) await pay(inv.address, String(Object.values(inv.currencies_amounts)[0]), inv.currencies_amounts.TRX ? 'TRX' : 'USDT');
      for (const inv of invoices) await waitStatus(key, inv.id, 'COMPLETED');
      for (const inv of invoices) {
        const sends = await app.prisma.transaction.findMany({ where: { invoiceId: inv.id, type: 'TRANSFER' } });
        assert.equal(sends.length, 1, `invoice ${inv.id}: ${sends.length} transfers`);
        assert.equal(await app.prisma.transaction.count({ where: { invoiceId: inv.id, type: 'PAYMENT' } }), 1);
        await waitFor('one webhook', async () => hooksFor(inv.id).length === 1);
      }
    } finally {
      await second.stop();
    }
  });

  // Last: every payment above is closed, so every unit must be in the books and on chain (npm run reconcile).
  /** Until the scanner has read the final block holding `txid` (and so everything it would record from it). */
  async function scannedPast(txid: string): Promise<void> {
    const { blockNumber } = await waitFor(`${txid} in a block`, async () => {
      const status = await chain.getTransactionStatus(txid);
      return status.blockNumber === null ? null : status;
    });
    await devnet.solidify();
    await waitFor(`the scanner past block ${blockNumber}`, async () => ((await app.prisma.chainCursor.findUnique({ where: { name: SOLIDIFIED_CURSOR } }))?.blockNumber ?? -1) >= blockNumber!);
  }

  it('completes a TRX invoice paid through a contract (an internal transaction), and never counts a contract\'s "transfer" whose call reverted (issue 37)', async () => {
    const { key, target } = await newMerchant();
    const inv = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'], order_id: 'trx-via-contract' });
    assert.deepEqual(inv.currencies_amounts, { TRX: 40 });
    // The 2024 fake deposit: the contract's inner call sending 40 TRX reverted (caught), the transaction succeeded.
    const rejected = await devnet.payViaContract(inv.address, '40', 'TRX', { reverted: true });
    await scannedPast(rejected);
    assert.equal(await chain.getTrxBalance(inv.address), 0n, 'the rejected transfer moved nothing');
    assert.equal((await statusOf(key, inv.id)).status, 'ACTIVE');
    assert.deepEqual(await app.prisma.transaction.findMany({ where: { OR: [{ invoiceId: inv.id }, { toAddress: inv.address }] } }), [], 'nothing recorded, held or sent');

    const txid = await devnet.payViaContract(inv.address, '40', 'TRX');
    const done = await waitStatus(key, inv.id, 'COMPLETED');
    assert.deepEqual(done.transfer_amounts.input, { TRX: 40 });
    const payment = await app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: inv.id, type: 'PAYMENT' } });
    assert.equal(payment.trnHash, txid);
    assert.equal(payment.chainRef, `${txid}:itx0`);
    assert.equal(payment.amountUnits, 40n * TRX);
    assert.equal(payment.fromAddress, (await devnetControl<{ payerContract: string }>(devnet.url, 'GET', 'info')).payerContract, 'sent by the contract, as the chain says');
    const transfer = await app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: inv.id, type: 'TRANSFER' } });
    assert.equal(transfer.toAddress, target);
    await waitFor('target balance', async () => (await chain.getTrxBalance(target)) === transfer.amountUnits && transfer.amountUnits > 0n);
  });

  it('holds TRX a flagged contract paid, for the merchant: an AML refund never goes to a smart contract (issues 34, 37)', async () => {
    const { key } = await newMerchant({ aml: true });
    const inv = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'], order_id: 'flagged-contract' });
    const { payerContract } = await devnetControl<{ payerContract: string }>(devnet.url, 'GET', 'info');
    const txid = await devnet.payViaContract(inv.address, '40', 'TRX');
    const payment = await waitFor('held', () => app.prisma.transaction.findFirst({ where: { trnHash: txid, type: 'PAYMENT', paymentState: 'HELD' } }), 60_000);
    assert.equal(payment.fromAddress, payerContract, 'its sender is the contract');
    assert.equal((payment.amlCheck as { status?: string } | null)?.status, 'FAILED', 'the check failed it');
    assert.match(payment.heldReason ?? '', new RegExp(`its sender ${payerContract} is a smart contract`));
    assert.deepEqual(await app.prisma.transaction.findMany({ where: { sourceId: payment.id } }), [], 'nothing sent, no gas bought');
    assert.equal(await chain.getTrxBalance(inv.address), 40n * TRX, 'the 40 TRX stay at the address, for the merchant to release');
  });

  it('completes a USDT invoice paid by a contract with transferFrom, and ignores a look-alike "Tether USD" token (issue 37)', async () => {
    const { key, target } = await newMerchant();
    const inv = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['USDT'], order_id: 'usdt-via-contract' });
    assert.deepEqual(inv.currencies_amounts, { USDT: 10 });
    // A token named "Tether USD", symbol USDT, 6 decimals, at another contract: its Transfer event is not USDT.
    const fake = await devnet.payFakeToken(inv.address, '10');
    await scannedPast(fake);
    assert.equal((await statusOf(key, inv.id)).status, 'ACTIVE');
    assert.deepEqual(await app.prisma.transaction.findMany({ where: { OR: [{ invoiceId: inv.id }, { toAddress: inv.address }] } }), [], 'nothing recorded, held or sent');

    const txid = await devnet.payViaContract(inv.address, '10', 'USDT');
    const done = await waitStatus(key, inv.id, 'COMPLETED');
    assert.deepEqual(done.transfer_amounts.input, { USDT: 10 }, 'the look-alike counted for nothing');
    const payment = await app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: inv.id, type: 'PAYMENT' } });
    assert.equal(payment.trnHash, txid);
    assert.equal(payment.currency, 'USDT');
    assert.equal(payment.fromAddress, devnet.faucetAddress, 'transferFrom\'s _from: the customer, not the contract');
    await waitFor('forwarded', async () => (await chain.getUsdtBalance(target)) === 9_900_000n);
  });

  it("keeps the node provider's rate limit: after a 429 the worker waits as told (Retry-After), misses no payment, and /metrics counts its requests (issue 37)", async () => {
    const { key } = await newMerchant();
    // A first payment settled: the worker is past its start and reading the chain as it does while payments come.
    const first = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'], order_id: 'before-throttle' });
    await pay(first.address, '40', 'TRX');
    await waitStatus(key, first.id, 'COMPLETED');
    const inv = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'], order_id: 'throttled' });
    await pay(inv.address, '40', 'TRX');
    // The provider refuses everything for 3 s, saying so (Retry-After: the seconds left), as TronGrid does past a key's rate.
    await devnet.fault.throttle({ seconds: 3 });
    await new Promise((r) => setTimeout(r, 3_500));
    const { throttle } = await devnet.fault.list();
    // Each of the worker's loops had at most a request in flight when the first refusal came; after it, none until the
    // wait named is over (lib/chain/meter.ts; test/chain/chain.test.ts proves it request by request).
    assert.ok(throttle.answered >= 1, 'the worker asked the node during the window');
    assert.ok(throttle.answered <= 8, `${throttle.answered} requests sent into the provider's refusal`);
    await waitStatus(key, inv.id, 'COMPLETED');

    const metrics = await waitFor("the worker's node requests on /metrics", async () => {
      const body = (await httpRequest(`${app.baseUrl}/metrics`)).text;
      return /invoicing_node_throttled_total\{process="worker",worker="[^"]+"\} [1-9]/.test(body) ? body : null;
    });
    const requests = [...metrics.matchAll(/^invoicing_node_requests_total\{process="worker",worker="[^"]+",endpoint="([^"]+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])] as const);
    assert.ok(requests.some(([endpoint, n]) => endpoint === 'wallet/getblockbylimitnext' && n > 0), `the scanner's block reads are counted: ${JSON.stringify(requests)}`);
    assert.ok(requests.every(([endpoint]) => /^(wallet|walletsolidity)\/[a-z0-9]+$/.test(endpoint)), `endpoints named as the node serves them: ${JSON.stringify(requests)}`);
  });

  it('detects every payment, direct and through a contract, in blocks full of mainnet-shaped traffic (issue 37)', async () => {
    // 30 transactions in every 100 ms block among the devnet's own accounts: USDT transfers (some reverting), TRX
    // transfers, contract calls with internal transactions, look-alike token transfers (devnet/traffic.ts).
    await devnet.traffic(30, 0.7);
    try {
      const { key } = await newMerchant();
      const trx = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'], order_id: 'traffic-trx' });
      const usdt = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['USDT'], order_id: 'traffic-usdt' });
      const viaContract = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'], order_id: 'traffic-contract' });
      const txids = [await pay(trx.address, '40', 'TRX'), await pay(usdt.address, '10', 'USDT'), await devnet.payViaContract(viaContract.address, '40', 'TRX')];
      for (const inv of [trx, usdt, viaContract]) await waitStatus(key, inv.id, 'COMPLETED');
      const node = async <T>(path: string, body: object) => (await (await fetch(`${devnet.url}/wallet/${path}`, { method: 'POST', body: JSON.stringify(body) })).json()) as T;
      for (const [i, inv] of [trx, usdt, viaContract].entries()) {
        const payments = await app.prisma.transaction.findMany({ where: { invoiceId: inv.id, type: 'PAYMENT' } });
        assert.deepEqual(payments.map((p) => p.trnHash), [txids[i]], `invoice ${inv.id}: its one payment, nothing of the traffic`);
        const block = await node<{ transactions?: unknown[] }>('getblockbynum', { num: Number(payments[0]!.blockNumber) });
        assert.ok((block.transactions?.length ?? 0) > 30, `the payment's block #${payments[0]!.blockNumber} carried the traffic too (${block.transactions?.length} transactions)`);
      }
    } finally {
      await devnet.traffic(0);
    }
  });

  it('balances the books: per payment, in total and per service address against the chain', async () => {
    await assertReconciled(app.prisma, chain);
  });
});
