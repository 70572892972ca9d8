import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { passwordHash } from '../helpers/accounts';
import { PAYMENT_TRANSITIONS, paymentStateDiagram } from '@/lib/rules/paymentStates';
import { waitFor } from '../helpers/devnet';
import { DashboardSession } from '../helpers/session';
import { reconcile } from '@/lib/reconcile/reconcile';
import { assertReconciled, TEST_RULES } from '../helpers/reconcile';
import { bind, SettlementStack } from '../helpers/settlementStack';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TRX = 1_000_000n;
const USDT = 1_000_000n;

describe('payment states: one door, and what it refuses', () => {
  it('docs/worker.md shows the payment state table exactly as the code has it', () => {
    const docs = readFileSync(path.join(ROOT, 'docs/worker.md'), 'utf8');
    const block = /```mermaid\n(stateDiagram-v2[\s\S]*?)\n```/.exec(docs)?.[1];
    assert.ok(block, 'docs/worker.md has a mermaid stateDiagram-v2 block');
    assert.equal(block, paymentStateDiagram());
  });

  it('closed states are left only by a merchant release (HELD) or an operator retry (FAILED); SETTLED and REFUNDED are final', () => {
    assert.deepEqual(PAYMENT_TRANSITIONS.SETTLED, []);
    assert.deepEqual(PAYMENT_TRANSITIONS.REFUNDED, []);
    for (const [from, tos] of Object.entries(PAYMENT_TRANSITIONS)) assert.ok(!tos.includes('DETECTED'), `${from} never goes back to DETECTED`);
  });
});

/**
 * Issue 22, cases 3, 5, 8 and 10 on the devnet with the real worker, each produced by real
 * transfers and merchant actions, never by writing a state the worker produces.
 */
describe('payment door on the devnet: nothing orphaned, griefed, canceled under money or held by old refusals', () => {
  const s = new SettlementStack();
  const { newMerchant, invoice, statusOf, dump, waitStatus, paymentOf, paymentState } = bind(s);

  before(() => s.start());
  after(() => s.stop());

  it('case 3: a target wallet cleared while a forward is in flight: the forward is followed to the end and the payment settles, not held under it; the next payment goes through', async () => {
    const { merchant, key, target } = await newMerchant();
    const inv = await invoice(key, { type: 'MULTIPLE', currencies: ['TRX'] });
    // The forward is broadcast but kept out of blocks for a while: a send in flight whose fate is unknown.
    await s.devnet.fault.delay({ from: inv.address, blocks: 150, count: 1 });
    await s.pay(inv.address, '20', 'TRX');
    const first = await paymentOf(inv.id, 20n * TRX);
    await waitFor('the forward broadcast', () => s.app.prisma.transaction.findFirst({ where: { sourceId: first.id, sendPurpose: 'FORWARD', sendState: 'BROADCAST' } }), 60_000);
    await s.app.prisma.merchant.update({ where: { id: merchant.id }, data: { targetWalletAddress: null } });
    const inFlight = await s.app.prisma.transaction.findFirstOrThrow({ where: { sourceId: first.id, sendPurpose: 'FORWARD' } });
    assert.equal(inFlight.sendState, 'BROADCAST', 'the wallet was cleared while the forward was in flight');
    const settled = await paymentState(first.id, ['SETTLED', 'HELD', 'FAILED']);
    assert.equal(settled.paymentState, 'SETTLED', await dump(inv.id));
    const forward = await s.app.prisma.transaction.findFirstOrThrow({ where: { sourceId: first.id, sendPurpose: 'FORWARD' } });
    assert.equal(forward.sendState, 'CONFIRMED');
    assert.equal(await s.chain.getTrxBalance(target), forward.amountUnits, 'the merchant has the forwarded TRX');
    // The address is not blocked by a stale send: with a wallet set again, the next customer's payment is forwarded.
    await s.app.prisma.merchant.update({ where: { id: merchant.id }, data: { targetWalletAddress: target } });
    await s.pay(inv.address, '21', 'TRX');
    const second = await paymentOf(inv.id, 21n * TRX);
    assert.equal((await paymentState(second.id, ['SETTLED', 'HELD', 'FAILED'])).paymentState, 'SETTLED', await dump(inv.id));
  });

  it('case 5: 1 TRX from a flagged address to an open invoice is returned without ending it; the real customer completes it and the merchant hears COMPLETED', async () => {
    const { key, target } = await newMerchant({ aml: true });
    const inv = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
    const grief = await s.chain.buildSignedTrxTransfer(s.flagged.privateKey, inv.address, 1n * TRX);
    await s.chain.broadcast(grief.signedTx);
    const flaggedPayment = await paymentOf(inv.id, 1n * TRX);
    const returned = await paymentState(flaggedPayment.id, ['REFUNDED', 'HELD', 'FAILED', 'SETTLED']);
    assert.equal(returned.paymentState, 'REFUNDED', await dump(inv.id));
    assert.equal((await statusOf(key, inv.id)).status, 'ACTIVE', 'a flagged payment below what the invoice asks does not end it');
    const due = String(inv.currencies_amounts.TRX);
    await s.pay(inv.address, due, 'TRX');
    const done = await waitStatus(key, inv.id, 'COMPLETED');
    assert.deepEqual(done.transfer_amounts.input, { TRX: Number(due) }, 'only the real payment is counted');
    await waitFor('the COMPLETED webhook', async () => s.hooks.some((h) => h.id === inv.id && h.status === 'COMPLETED'));
    assert.ok(!s.hooks.some((h) => h.id === inv.id && h.status === 'AML_FAILED'));
    const forward = await s.app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: inv.id, sendPurpose: 'FORWARD', sendState: 'CONFIRMED' } });
    assert.equal(await s.chain.getTrxBalance(target), forward.amountUnits);
    // Reconcile knows the rule: AML_FAILED written past the door for this invoice (a 1 TRX refund) is a misreport.
    const was = await s.app.prisma.invoice.findUniqueOrThrow({ where: { id: inv.id } });
    await s.app.prisma.invoice.update({ where: { id: inv.id }, data: { status: 'AML_FAILED' } });
    try {
      const r = await reconcile(s.app.prisma, s.chain, TEST_RULES);
      assert.ok(r.mismatches.some((m) => m.includes(`invoice ${inv.id} status AML_FAILED: no payment that would have paid it was refunded`)), r.mismatches.join('\n'));
    } finally {
      await s.app.prisma.invoice.update({ where: { id: inv.id }, data: { status: was.status } });
    }
  });

  it('case 5: a flagged payment of the whole amount still ends the invoice AML_FAILED', async () => {
    const { key } = await newMerchant({ aml: true });
    const inv = await invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
    const units = BigInt(Math.round(inv.currencies_amounts.TRX! * 1e6));
    const whole = await s.chain.buildSignedTrxTransfer(s.flagged.privateKey, inv.address, units);
    await s.chain.broadcast(whole.signedTx);
    await waitStatus(key, inv.id, 'AML_FAILED');
  });

  it('case 8: an invoice with a payment detected, being forwarded or partly settled cannot be canceled, in the API and the dashboard', async () => {
    const { merchant, key } = await newMerchant();
    await s.app.prisma.user.updateMany({ where: { memberships: { some: { merchantId: merchant.id } } }, data: { passwordHash: await passwordHash('door password 1') } });
    const dashboard = new DashboardSession(s.app.baseUrl);
    assert.equal(await dashboard.signIn(merchant.email, 'door password 1'), null);
    const inv = await invoice(key, { type: 'SINGLE', amount: 100, currencies: ['TRX'] });
    assert.equal((await dashboard.api(`/invoices/${inv.id}`)).json.cancelable, true, 'nothing arrived yet: Cancel is offered');
    await s.pay(inv.address, '40', 'TRX');
    const payment = await paymentOf(inv.id, 40n * TRX);
    const cancel = await s.app.api(`/payment/${inv.id}/cancel`, key, { method: 'DELETE' });
    assert.equal(cancel.status, 400, cancel.text);
    assert.deepEqual(cancel.json, { detail: 'Invoice cannot be canceled' });
    await paymentState(payment.id, ['SETTLED']);
    const after = await s.app.api(`/payment/${inv.id}/cancel`, key, { method: 'DELETE' });
    assert.equal(after.status, 400, 'partly paid: still not cancelable');
    assert.equal((await dashboard.api(`/invoices/${inv.id}`)).json.cancelable, false, 'the dashboard offers no Cancel');
    assert.equal((await dashboard.api(`/invoices/${inv.id}/cancel`, 'POST')).status, 400, 'nor does its cancel route accept one');
    const shown = await statusOf(key, inv.id);
    assert.equal(shown.status, 'ACTIVE');
    assert.deepEqual(shown.transfer_amounts.input, { TRX: 40 });
    // Nothing arrived: cancelable as before.
    const other = await invoice(key, { type: 'SINGLE', amount: 100, currencies: ['TRX'] });
    const ok = await s.app.api(`/payment/${other.id}/cancel`, key, { method: 'DELETE' });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.status, 'CANCELED');
  });

  it('case 8: held dust does not make an invoice uncancelable', async () => {
    const { key } = await newMerchant();
    const inv = await invoice(key, { type: 'SINGLE', amount: 100, currencies: ['TRX'] });
    await s.pay(inv.address, '0.5', 'TRX');
    const dust = await paymentOf(inv.id, TRX / 2n);
    assert.match((await paymentState(dust.id, ['HELD'])).heldReason ?? '', /^dust:/);
    const cancel = await s.app.api(`/payment/${inv.id}/cancel`, key, { method: 'DELETE' });
    assert.equal(cancel.status, 200, cancel.text);
  });

  it('case 10: refusals are counted in a row: a round that gets through resets the count, so a payment is not held for old refusals', async () => {
    const { key, target } = await newMerchant();
    const inv = await invoice(key, { type: 'SINGLE', amount: 20, currencies: ['USDT'] });
    await s.pay(inv.address, '20', 'USDT');
    // The address's USDT is taken away before the worker sees the payment: every estimate of its forward reverts.
    await s.devnet.setBalance(inv.address, { usdtUnits: 0n });
    const payment = await paymentOf(inv.id, 20n * USDT);
    await waitFor('two refusals counted', async () => ((await s.app.prisma.transaction.findUniqueOrThrow({ where: { id: payment.id } })).retries >= 2 ? true : null), 60_000);
    await s.devnet.setBalance(inv.address, { usdtUnits: 20n * USDT });
    const settled = await paymentState(payment.id, ['SETTLED', 'HELD', 'FAILED']);
    assert.equal(settled.paymentState, 'SETTLED', await dump(inv.id));
    assert.equal(settled.retries, 0, 'the refusals before the round that got through are not counted any more');
    assert.ok((await s.chain.getUsdtBalance(target)) > 0n);
  });

  it('the books balance: every payment closed, ledger equal to the chain', async () => {
    await assertReconciled(s.app.prisma, s.chain, 60_000);
  });
});
