import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TronWeb } from 'tronweb';
import { createChain, type Chain } from '@/lib/chain';
import { issueApiKey } from '@/lib/auth/apiKeys';
import { retryFailedPayment } from '@/lib/payments/operator';
import { deriveAccount } from '@/lib/chain/keys';
import { tokenAmountText, tokenUnits } from '@/lib/money/tokens';
import { startApp, TEST_MNEMONIC, type TestApp } from '../helpers/app';
import { startDevnetProcess, waitFor, type DevnetProcess } from '../helpers/devnet';
import { httpRequest } from '../helpers/http';
import { assertReconciled } from '../helpers/reconcile';
import { startWorker, type WorkerProcess } from '../helpers/worker';

const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;

/**
 * A refund funded from money the service still holds for the invoice (issue 36, docs/refunds.md
 * "Funded from held money"), on the devnet with the real web and worker: a payment that arrived
 * after the invoice was canceled is held; a refund of the invoice is paid from it first (released
 * whole into the refund's payout, its cost taken out of it), the merchant tops up only what it does
 * not cover, the customer receives exactly the amount, and the books balance. The held payment
 * cannot be released another way while the refund stands, and is free again once it is canceled.
 */
describe('refunds funded from held money on the devnet', () => {
  let devnet: DevnetProcess;
  let app: TestApp;
  let worker: WorkerProcess;
  let chain: Chain;
  let key: string;
  let merchantId: number;

  const post = (path: string, body: unknown) => app.api(path, key, { method: 'POST', body });
  const refund = async (id: number) => (await app.api(`/refund/${id}`, key)).json;
  const waitRefund = (id: number, status: string) =>
    waitFor(`refund ${id} to be ${status}`, async () => {
      const r = await refund(id);
      return r.status === status ? r : null;
    }, 90_000);
  const heldPayment = async (hash: string) => (await app.api(`/held_payment/${hash}`, key)).json;

  /** An invoice canceled, then paid `amount`: the payment is held for the merchant (reason `canceled`). */
  async function heldLatePayment(amount: string, currency: 'TRX' | 'USDT' = 'TRX') {
    const inv = (await post('/payment/create', { type: 'SINGLE', amount: 10, currencies: [currency] })).json as { id: number; address: string };
    assert.equal((await app.api(`/payment/${inv.id}/cancel`, key, { method: 'DELETE' })).status, 200);
    await devnet.pay(inv.address, amount, currency);
    const held = await waitFor(`a held payment on invoice ${inv.id}`, async () => {
      const list = (await app.api(`/held_payment/list?invoice_id=${inv.id}`, key)).json as { results: { trn_hash: string; amount: number; held_reason: string }[] };
      return list.results[0] ?? null;
    }, 60_000);
    assert.deepEqual([held.amount, held.held_reason], [Number(amount), 'canceled']);
    return { invoice: inv, trnHash: held.trn_hash };
  }

  before(async () => {
    devnet = await startDevnetProcess({ blockMs: 100, solidifiedDepth: 3 });
    app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract, PUBLIC_BASE_URL: 'https://pay.example.com' });
    chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
    const made = await app.createMerchant({ targetWallet: randomAddress() });
    ({ key } = made);
    merchantId = made.merchant.id;
    await devnet.pay(deriveAccount(TEST_MNEMONIC, 0, 'gas').address, '10000', 'TRX');
    worker = startWorker(app.env, devnet);
  });

  after(async () => {
    await worker?.stop();
    await app?.stop();
    await devnet?.stop();
  });

  it('a late payment held for a canceled invoice funds a refund to a named address whole: nothing to top up, the customer gets exactly the amount', async () => {
    const { invoice, trnHash } = await heldLatePayment('30');
    const customer = randomAddress();
    // The dashboard's estimate says the held money pays for it first: nothing to top up.
    const created = await post(`/payment/${invoice.id}/refund`, { currency: 'TRX', amount: 20, address: customer });
    assert.equal(created.status, 200, created.text);
    const r = created.json;
    assert.equal(r.topup_amount, 0, 'the held 30 TRX cover the 20 and both hops\' network cost');
    assert.equal(r.funded_from_held.amount, 30);
    assert.deepEqual(r.funded_from_held.payments, [trnHash]);
    // The release into the payout creates its account (1 TRX and more); the payout's send to the new customer as much again: both are the merchant's.
    assert.ok(r.funded_from_held.cost >= 1 && r.funded_from_held.cost < 2, `release cost ${r.funded_from_held.cost}`);
    assert.ok(r.cost > r.funded_from_held.cost + 1, `cost ${r.cost} holds both hops`);
    // The audit log says which held money the refund let go, as a release's row does.
    const audit = await app.prisma.auditLog.findFirstOrThrow({ where: { action: 'refund_created', subject: String(r.id) } });
    assert.deepEqual((audit.after as { funded_from_held: string[] }).funded_from_held, [trnHash]);

    // What may be refunded counts the held money, less what this refund takes.
    const over = await post(`/payment/${invoice.id}/refund`, { currency: 'TRX', amount: '10.000001', address: customer });
    assert.equal(over.status, 400, over.text);
    assert.match(over.json.detail, /^amount: At most 10 TRX can be refunded: invoice #\d+ received 30 TRX \(30 of it held by the service\), and 20 is refunded or being refunded\.$/);
    // The payment is on its way to the refund: not held any more, so no other release.
    const again = await post(`/held_payment/${trnHash}/release`, { action: 'FORWARD' });
    assert.equal(again.status, 400, again.text);
    assert.equal(again.json.detail, 'Only held funds can be released.');
    const canceled = await app.api(`/refund/${r.id}/cancel`, key, { method: 'DELETE' });
    assert.equal(canceled.status, 400, canceled.text);
    assert.match(canceled.json.detail, /^Refund cannot be canceled: /);

    const sent = await waitRefund(r.id, 'SENT');
    assert.equal(await chain.getTrxBalance(customer), 20_000_000n, 'the customer received exactly the amount');
    assert.equal(sent.topup_amount, 0);
    // The held payment shows as released: returned to the refund's payout address.
    const released = await waitFor('the held payment released', async () => {
      const h = await heldPayment(trnHash);
      return h.release?.state === 'RETURNED' ? h : null;
    }, 60_000);
    assert.deepEqual([released.release.action, released.release.to_address], ['REFUND', r.topup_address]);
    // What the held money brought beyond the payout's need stays at the payout's address (docs/refunds.md).
    const releaseCost = tokenUnits(sent.funded_from_held.cost);
    assert.ok((await chain.getTrxBalance(r.topup_address)) > 0n);
    assert.ok(30_000_000n - releaseCost > 20_000_000n);
    await assertReconciled(app.prisma, chain);
  });

  it('a key with refunds:write alone does not spend held money: the merchant tops up the whole refund, and the payment stays held', async () => {
    const { invoice, trnHash } = await heldLatePayment('30');
    const refundsOnly = await issueApiKey(app.prisma, merchantId, 'refunds only', ['read', 'refunds:write']);
    const created = await app.api(`/payment/${invoice.id}/refund`, refundsOnly, { method: 'POST', body: { currency: 'TRX', amount: 20, address: randomAddress() } });
    assert.equal(created.status, 200, created.text);
    const r = created.json;
    assert.equal(r.funded_from_held, null, 'held money is released only with payouts:write');
    assert.ok(r.topup_amount > 20, `the whole refund and its cost to top up: ${r.topup_amount}`);
    const still = await heldPayment(trnHash);
    assert.deepEqual([still.held_reason, still.release], ['canceled', null], 'still held, free to release');
    assert.equal((await app.api(`/refund/${r.id}/cancel`, refundsOnly, { method: 'DELETE' })).status, 200);
    // With both rights the same refund is paid from the held money.
    const both = await post(`/payment/${invoice.id}/refund`, { currency: 'TRX', amount: 20, address: randomAddress() });
    assert.equal(both.status, 200, both.text);
    assert.deepEqual(both.json.funded_from_held?.payments, [trnHash]);
    await waitRefund(both.json.id, 'SENT');
    await assertReconciled(app.prisma, chain);
  });

  it('held money smaller than the amount and its cost: the merchant tops up exactly the rest, and the refund is sent', async () => {
    const { invoice, trnHash } = await heldLatePayment('5');
    const customer = randomAddress();
    const created = await post(`/payment/${invoice.id}/refund`, { currency: 'TRX', amount: 5, address: customer });
    assert.equal(created.status, 200, created.text);
    const r = created.json;
    assert.equal(r.status, 'WAITING_FUNDS');
    assert.equal(r.funded_from_held.amount, 5);
    // The payout needs 5 and its cost; the held 5 bring 5 less their release's cost: the rest is the merchant's top-up.
    const payoutNeed = tokenUnits(r.amount) + tokenUnits(r.cost) - tokenUnits(r.funded_from_held.cost);
    assert.equal(tokenUnits(r.topup_amount), payoutNeed - (5_000_000n - tokenUnits(r.funded_from_held.cost)));
    assert.ok(r.topup_amount > 0);

    // Once the held money has arrived at the payout, topup_amount is exact: what it brought is counted as a top-up.
    await waitFor('the held payment released into the payout', async () => (await heldPayment(trnHash)).release?.state === 'RETURNED', 60_000);
    await waitFor('the held money counted as the payout\'s top-up', async () => (await app.api(`/payment/get/${r.payout}`, key)).json.transfer_amounts.input.TRX > 0, 30_000);
    const waiting = await refund(r.id);
    assert.equal(waiting.status, 'WAITING_FUNDS');
    const arrived = await chain.getTrxBalance(r.topup_address);
    assert.equal(arrived, 5_000_000n - tokenUnits(waiting.funded_from_held.cost), 'the payment less its release cost reached the payout');
    assert.equal(tokenUnits(waiting.topup_amount), payoutNeed - arrived);
    await devnet.pay(r.topup_address, tokenAmountText(tokenUnits(waiting.topup_amount)), 'TRX');
    const sent = await waitRefund(r.id, 'SENT');
    assert.equal(sent.topup_amount, 0);
    assert.equal(await chain.getTrxBalance(customer), 5_000_000n, 'the customer received exactly the amount');
    await assertReconciled(app.prisma, chain);
  });

  it('a late USDT payment held funds a USDT refund: its release\'s gas and the payout\'s are in the cost, nothing to top up, exactly the amount sent', async () => {
    const { invoice, trnHash } = await heldLatePayment('40', 'USDT');
    const customer = randomAddress();
    const created = await post(`/payment/${invoice.id}/refund`, { currency: 'USDT', amount: 10, address: customer });
    assert.equal(created.status, 200, created.text);
    const r = created.json;
    assert.deepEqual([r.topup_amount, r.funded_from_held.amount, r.funded_from_held.payments], [0, 40, [trnHash]]);
    assert.ok(r.funded_from_held.cost > 0 && r.cost > r.funded_from_held.cost, `release ${r.funded_from_held.cost}, cost ${r.cost}`);
    await waitRefund(r.id, 'SENT');
    assert.equal(await chain.getUsdtBalance(customer), 10_000_000n, 'the customer received exactly the amount');
    await waitFor('the held payment released into the payout', async () => (await heldPayment(trnHash)).release?.state === 'RETURNED', 60_000);
    await assertReconciled(app.prisma, chain);
  });

  it("a held payment whose release into a refund FAILED is held again by the operator's retry once that refund's payout timed out, never sent to the dead payout; the merchant then releases it", async () => {
    const { invoice, trnHash } = await heldLatePayment('20', 'USDT');
    const payment = await app.prisma.transaction.findFirstOrThrow({ where: { trnHash, type: 'PAYMENT' } });
    // Every USDT send from the payment's address reverts on chain: the release into the refund's payout fails each attempt.
    await devnet.fault.fail({ from: invoice.address, result: 'REVERT' });
    let payoutAddress = '';
    // Nothing of the payment's in flight, and no gas left at its address to go back (each close of it returns it: lib/payments/gasReturn.ts).
    const settledDown = () => waitFor('the payment\'s gas returned, nothing of it in flight', async () => {
      const row = await app.prisma.transaction.findUniqueOrThrow({ where: { id: payment.id } });
      const inFlight = await app.prisma.transaction.count({ where: { sourceId: payment.id, sendState: { in: ['SIGNED', 'BROADCAST'] } } });
      return !row.gasReturnDue && inFlight === 0 ? true : null;
    }, 60_000);
    try {
      const r = (await post(`/payment/${invoice.id}/refund`, { currency: 'USDT', amount: 5, address: randomAddress() })).json;
      assert.deepEqual(r.funded_from_held.payments, [trnHash]);
      await waitFor('the release FAILED after its attempts', async () => (await app.prisma.transaction.findUniqueOrThrow({ where: { id: payment.id } })).paymentState === 'FAILED', 120_000);
      const { payoutId } = await app.prisma.refund.findUniqueOrThrow({ where: { id: r.id } });
      payoutAddress = (await app.prisma.invoice.findUniqueOrThrow({ where: { id: payoutId! } })).address!;
      // Nothing arrives at the refund's payout: it times out (its deadline brought forward), and the refund with it.
      await app.prisma.invoice.update({ where: { id: payoutId! }, data: { expiredAt: new Date(Date.now() - 1000) } });
      const failed = await waitRefund(r.id, 'FAILED');
      assert.match(failed.failure_reason, /top-up did not arrive/);

      // The operator's retry (as the door says, once nothing of the payment's is in flight: the gas left at its address
      // goes back to the gas wallet once it has failed): the refund it was released into no longer stands, so it is held again, free of it.
      await settledDown();
      const retried = await retryFailedPayment(app.prisma, payment.id);
      assert.deepEqual([retried.paymentState, retried.refundId, retried.releaseAction, retried.releaseAddress], ['HELD', null, null, null]);
      const held = await heldPayment(trnHash);
      assert.deepEqual([held.held_reason, held.release], ['canceled', null]);
    } finally {
      await devnet.fault.clear();
    }
    // The merchant releases it as any held payment (once the gas sent back at its hold has gone), returned to the customer; the books balance.
    await settledDown();
    const customer = randomAddress();
    const released = await post(`/held_payment/${trnHash}/release`, { action: 'REFUND', address: customer });
    assert.equal(released.status, 200, released.text);
    await waitFor('the held payment returned', async () => ((await heldPayment(trnHash)).release?.state === 'RETURNED' ? true : null), 120_000);
    // The customer gets it less the return's network cost, which stays at the address (kept by the service: a release REFUND's cost).
    const [toCustomer, keptThere] = [await chain.getUsdtBalance(customer), await chain.getUsdtBalance(invoice.address)];
    assert.ok(toCustomer > 0n, 'the customer received it');
    assert.equal(toCustomer + keptThere, 20_000_000n, `${toCustomer} to the customer, ${keptThere} kept at the address`);
    assert.equal(await app.prisma.transaction.count({ where: { sourceId: payment.id, toAddress: payoutAddress, sendState: { not: 'FAILED' } } }), 0, 'nothing of it went to the timed-out payout');
    assert.equal(await chain.getUsdtBalance(payoutAddress), 0n);
    await assertReconciled(app.prisma, chain);
  });

  it('a claim link keeps the held payment for the refund: released another way is refused, a cancel frees it, and a claim sends it', async () => {
    const { invoice, trnHash } = await heldLatePayment('30');
    const first = (await post(`/payment/${invoice.id}/refund`, { currency: 'TRX', amount: 10 })).json;
    assert.equal(first.status, 'WAITING_ADDRESS');
    assert.deepEqual([first.funded_from_held.payments, first.funded_from_held.amount], [[trnHash], 30]);
    assert.equal(first.topup_amount, null);

    // Still held, but kept for the refund: the release rules say so.
    const refused = await post(`/held_payment/${trnHash}/release`, { action: 'REFUND', address: randomAddress() });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.json.detail, `This payment funds refund #${first.id} of invoice #${invoice.id}; cancel that refund to release it another way.`);
    assert.equal((await heldPayment(trnHash)).release, null);

    // Canceled: the payment is free again, and funds the next refund.
    assert.equal((await app.api(`/refund/${first.id}/cancel`, key, { method: 'DELETE' })).json.status, 'CANCELED');
    assert.equal((await refund(first.id)).funded_from_held, null, 'the canceled refund keeps nothing');
    const r = (await post(`/payment/${invoice.id}/refund`, { currency: 'TRX', amount: 10 })).json;
    assert.deepEqual(r.funded_from_held.payments, [trnHash]);
    const link = new URL(r.claim_url);
    const customer = randomAddress();
    const claimed = await httpRequest(`${app.baseUrl}/payment/refund/${r.id}/claim?k=${encodeURIComponent(link.searchParams.get('k')!)}`, { method: 'POST', body: { address: customer } });
    assert.equal(claimed.status, 200, claimed.text);
    const funded = await refund(r.id);
    assert.equal(funded.topup_amount, 0, 'the held 30 TRX cover it: nothing to top up');
    await waitRefund(r.id, 'SENT');
    assert.equal(await chain.getTrxBalance(customer), 10_000_000n, 'the customer received exactly the amount');
    assert.equal((await waitFor('released into the payout', async () => ((await heldPayment(trnHash)).release?.state === 'RETURNED' ? true : null), 60_000)), true);
    await assertReconciled(app.prisma, chain);
  });
});
