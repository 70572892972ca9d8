import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TronWeb } from 'tronweb';
import { passwordHash } from '../helpers/accounts';
import { waitFor } from '../helpers/devnet';
import { assertReconciled } from '../helpers/reconcile';
import { DashboardSession } from '../helpers/session';
import { SettlementStack } from '../helpers/settlementStack';

// Tether's blacklist on the devnet (POST /devnet/usdt/blacklist, issue 37): the USDT contract answers
// isBlackListed as the real one does, a frozen sender's transfer reverts and a frozen address can still
// receive. The service checks it before money moves: a payment at a frozen address, or one whose
// merchant wallet is frozen, is held with the reason and nothing is bought or sent for it; a USDT
// payout to a frozen target is refused at creation, and one from a frozen address sends nothing.

const TRX = 1_000_000n;
const USDT = 1_000_000n;
const newAccount = () => TronWeb.createRandom() as unknown as { address: string; privateKey: string };

describe("USDT addresses frozen by Tether's blacklist (issue 37)", () => {
  const s = new SettlementStack();
  before(async () => {
    await s.start();
  });
  after(() => s.stop());

  /** What the service sent or bought for a payment: gas, energy, its forward or refund. */
  const sendsFor = (paymentId: number) => s.app.prisma.transaction.findMany({ where: { sourceId: paymentId } });

  test('the devnet: isBlackListed answers as the contract does, a frozen sender\'s transfer reverts, a frozen address still receives, and it can be taken off the list', async () => {
    const holder = newAccount();
    await s.pay(holder.address, '50', 'TRX');
    await s.pay(holder.address, '10', 'USDT');
    await waitFor('the holder funded', async () => ((await s.chain.getUsdtBalance(holder.address)) === 10n * USDT ? true : null), 30_000);
    assert.equal(await s.chain.isUsdtFrozen(holder.address), false);
    await s.devnet.blacklist(holder.address);
    assert.equal(await s.chain.isUsdtFrozen(holder.address), true);

    const out = await s.chain.buildSignedUsdtTransfer(holder.privateKey, newAccount().address, 1n * USDT, 50n * TRX);
    await s.chain.broadcast(out.signedTx);
    const status = await waitFor('the frozen sender\'s transfer in a block', async () => {
      const st = await s.chain.getTransactionStatus(out.txId);
      return st.blockNumber !== null ? st : null;
    }, 30_000);
    assert.equal(status.status, 'failed', 'a transfer from a frozen address reverts');
    assert.equal(await s.chain.getUsdtBalance(holder.address), 10n * USDT, 'nothing left it');

    await s.pay(holder.address, '5', 'USDT');
    await waitFor('a frozen address receives', async () => ((await s.chain.getUsdtBalance(holder.address)) === 15n * USDT ? true : null), 30_000);

    await s.devnet.blacklist(holder.address, false);
    assert.equal(await s.chain.isUsdtFrozen(holder.address), false);
    const reply = await fetch(`${s.devnet.url}/devnet/usdt/blacklist`, { method: 'POST', body: JSON.stringify({ address: holder.address, frozen: 'maybe' }) });
    assert.equal(reply.status, 400, await reply.text());
  });

  test('a payment at a frozen deposit address is held with the reason: no gas, no energy, no send', async () => {
    const { key } = await s.newMerchant();
    const inv = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['USDT'] });
    await s.devnet.blacklist(inv.address);
    const gasBefore = await s.chain.getTrxBalance(s.gasWallet.address);
    await s.pay(inv.address, String(inv.currencies_amounts.USDT), 'USDT');
    const payment = await s.paymentOf(inv.id, 10n * USDT);
    const held = await s.paymentState(payment.id, ['HELD']);
    assert.match(held.heldReason ?? '', new RegExp(`^frozen: the USDT contract has frozen ${inv.address}`));
    assert.deepEqual(await sendsFor(payment.id), [], 'nothing was sent or bought for it');
    assert.equal(await s.chain.getTrxBalance(s.gasWallet.address), gasBefore, 'the gas wallet paid nothing');
    assert.equal(await s.chain.getUsdtBalance(inv.address), 10n * USDT, 'the USDT is where it arrived');
  });

  test("a payment whose merchant wallet is frozen is held with the reason and an ALERT, nothing sent; the payout API refuses a frozen USDT target, naming it", async () => {
    const { key, target } = await s.newMerchant();
    await s.devnet.blacklist(target);
    const inv = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['USDT'] });
    await s.pay(inv.address, String(inv.currencies_amounts.USDT), 'USDT');
    const payment = await s.paymentOf(inv.id, 10n * USDT);
    const held = await s.paymentState(payment.id, ['HELD']);
    assert.match(held.heldReason ?? '', new RegExp(`^frozen: the target wallet ${target} is frozen by the USDT contract`));
    assert.deepEqual(await sendsFor(payment.id), [], 'nothing was sent or bought for it');
    assert.match(s.worker.output(), new RegExp(`ALERT payment ${payment.id}: the target wallet ${target} is frozen by the USDT contract`));

    const free = newAccount().address;
    const body = { currency: 'USDT', target_wallets: [{ address: free, amount: 1 }, { address: target, amount: 2 }] };
    const refused = await s.app.api('/payment/multiple_transfer/create', key, { method: 'POST', body });
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.json.detail, /target_wallets\[1\]\.address/);
    assert.match(refused.json.detail, /frozen by the USDT contract/);
    assert.doesNotMatch(refused.json.detail, /target_wallets\[0\]/);
    // TRX is not the USDT contract's to freeze: the same target is accepted for a TRX payout.
    const trx = await s.app.api('/payment/multiple_transfer/create', key, { method: 'POST', body: { ...body, currency: 'TRX' } });
    assert.equal(trx.status, 200, trx.text);
  });

  test('a USDT payout whose address was frozen after it was created sends nothing: every target fails with the reason, the top-up stays', async () => {
    const { key } = await s.newMerchant();
    const targets = [{ address: newAccount().address, amount: 1 }, { address: newAccount().address, amount: 2 }];
    const payout = (await s.app.api('/payment/multiple_transfer/create', key, { method: 'POST', body: { currency: 'USDT', target_wallets: targets } })).json;
    await s.devnet.blacklist(payout.address);
    await s.pay(payout.address, String(payout.currencies_amounts.USDT), 'USDT');
    const done = await s.waitStatus(key, payout.id, 'ERROR');
    assert.deepEqual(done.failed_targets.map((f: { index: number; error: string }) => [f.index, /^frozen: the USDT contract has frozen/.test(f.error)]), [[0, true], [1, true]]);
    assert.equal(await s.app.prisma.transaction.count({ where: { invoiceId: payout.id, sendState: { not: null } } }), 0, 'nothing sent or bought');
    for (const t of targets) assert.equal(await s.chain.getUsdtBalance(t.address), 0n);
  });

  test('held USDT cannot be returned to a frozen address: the dashboard refuses it naming the address, the payment stays held, nothing is sent; TRX can', async () => {
    const { merchant, key } = await s.newMerchant();
    const email = `frozen-${merchant.id}@example.com`;
    const password = 'a long enough password';
    await s.app.prisma.merchant.update({ where: { id: merchant.id }, data: { email } });
    await s.app.prisma.user.updateMany({ where: { memberships: { some: { merchantId: merchant.id } } }, data: { email, passwordHash: await passwordHash(password) } });
    const browser = new DashboardSession(s.app.baseUrl);
    assert.equal(await browser.signIn(email, password), null);
    // Paid after the invoice was canceled: held for the merchant to forward or return.
    const inv = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['USDT', 'TRX'] });
    assert.equal((await s.app.api(`/payment/${inv.id}/cancel`, key, { method: 'DELETE' })).status, 200);
    await s.pay(inv.address, '10', 'USDT');
    const held = await s.paymentState((await s.paymentOf(inv.id, 10n * USDT)).id, ['HELD']);
    const frozen = newAccount().address;
    await s.devnet.blacklist(frozen);

    const refused = await browser.api(`/transactions/${held.trnHash}/release`, 'POST', { action: 'REFUND', address: frozen });
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.json.detail, /^address: This address is frozen by the USDT contract/);
    assert.ok(refused.json.errors.address, refused.text);
    assert.equal((await s.app.prisma.transaction.findUniqueOrThrow({ where: { id: held.id } })).paymentState, 'HELD');
    assert.deepEqual(await sendsFor(held.id), [], 'nothing was sent or bought for it');

    // TRX is not the USDT contract's to freeze: held TRX may be returned there.
    await s.pay(inv.address, '30', 'TRX');
    const heldTrx = await s.paymentState((await s.paymentOf(inv.id, 30n * TRX)).id, ['HELD']);
    const accepted = await browser.api(`/transactions/${heldTrx.trnHash}/release`, 'POST', { action: 'REFUND', address: frozen });
    assert.equal(accepted.status, 200, accepted.text);
    await s.paymentState(heldTrx.id, ['REFUNDED']);
    assert.ok((await s.chain.getTrxBalance(frozen)) > 0n, 'the TRX reached it');
  });

  test('the books reconcile', async () => {
    await assertReconciled(s.app.prisma, s.chain);
  });
});
