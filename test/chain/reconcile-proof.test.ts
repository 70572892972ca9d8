import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TronWeb } from 'tronweb';
import { createChain, type Chain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import { bookSendLanded } from '@/lib/ledger/book';
import { invoiceAccount } from '@/lib/merchants/accounts';
import { tokenUnits } from '@/lib/money/tokens';
import { parseStoredTargets } from '@/lib/invoices/storedTargets';
import { startApp, TEST_MNEMONIC, type TestApp } from '../helpers/app';
import { startDevnetProcess, waitFor, type DevnetProcess } from '../helpers/devnet';
import { assertReconciled } from '../helpers/reconcile';
import { startWorker, type WorkerProcess } from '../helpers/worker';
import { scriptArgs } from '../helpers/scripts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TRX = 1_000_000n;
const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;

/**
 * `npm run reconcile` as a full proof (issue 22, item 9): real money moves on the devnet
 * through the real worker (a SINGLE TRX and a SINGLE USDT invoice paid, a MULTIPLE payment,
 * a USDT payment returned after a failed AML check, a TRX payout, merchant top-ups in TRX and
 * USDT), the untouched data reconciles, and then each misreport the ledger alone cannot see is
 * planted in turn and must make the real script exit 1 naming it. Each case is undone before
 * the next; the double payment, which moves real money, comes last.
 */
describe('reconcile proves what was reported and owed', () => {
  let devnet: DevnetProcess;
  let app: TestApp;
  let worker: WorkerProcess;
  let chain: Chain;
  let key: string;
  let merchantId: number;
  let wallets: { topup: string; activation: string };
  const flagged = TronWeb.createRandom() as unknown as { address: string; privateKey: string };
  const ids: Record<'trx' | 'usdt' | 'multiple' | 'refunded' | 'payout', number> = { trx: 0, usdt: 0, multiple: 0, refunded: 0, payout: 0 };

  const pay = (address: string, amount: string, currency: 'TRX' | 'USDT') => devnet.pay(address, amount, currency);
  const post = async (p: string, body: unknown) => {
    const res = await app.api(p, key, { method: 'POST', body });
    assert.equal(res.status, 200, res.text);
    return res.json;
  };
  const statusOf = async (id: number) => (await app.api(`/payment/get/${id}`, key)).json;
  const waitStatus = (id: number, status: string) => waitFor(`invoice ${id} ${status}`, async () => (await statusOf(id)).status === status, 45_000);
  const reconcile = () => spawnSync(process.execPath, scriptArgs('scripts/reconcile.ts'), { cwd: ROOT, env: { ...process.env, ...app.env }, encoding: 'utf8' });
  /** The real script must fail naming the fault, and pass again once it is undone. */
  async function mustFail(message: RegExp, undo: () => Promise<unknown>) {
    const bad = reconcile();
    try {
      assert.equal(bad.status, 1, `reconcile passed the planted fault:\n${bad.stdout}${bad.stderr}`);
      assert.match(bad.stderr, message);
    } finally {
      await undo();
    }
    const ok = reconcile();
    assert.equal(ok.status, 0, `not restored:\n${ok.stderr}`);
  }

  before(async () => {
    devnet = await startDevnetProcess({ blockMs: 100, solidifiedDepth: 3 });
    app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
    chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
    const made = await app.createMerchant({ targetWallet: randomAddress() });
    key = made.key;
    merchantId = made.merchant.id;
    wallets = { topup: made.merchant.topupWalletAddress, activation: made.merchant.activationWalletAddress };
    await app.prisma.merchant.update({ where: { id: merchantId }, data: { amlCheck: true, amlRiskLimit: '50' } });
    await pay(deriveAccount(TEST_MNEMONIC, 0, 'gas').address, '10000', 'TRX');
    await pay(flagged.address, '500', 'TRX');
    await pay(flagged.address, '20', 'USDT');
    worker = startWorker(app.env, devnet, { AML_FLAGGED_ADDRESSES: flagged.address });
  });

  after(async () => {
    await worker?.stop();
    await app?.stop();
    await devnet?.stop();
  });

  it('moves real money with the worker, and the untouched books reconcile (exit 0, "balanced")', async () => {
    const trx = await post('/payment/create', { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
    const usdt = await post('/payment/create', { type: 'SINGLE', amount: 25, currencies: ['USDT'], client_comission: true });
    const multiple = await post('/payment/create', { type: 'MULTIPLE', currencies: ['TRX'] });
    const refunded = await post('/payment/create', { type: 'SINGLE', amount: 15, currencies: ['USDT'] });
    Object.assign(ids, { trx: trx.id, usdt: usdt.id, multiple: multiple.id, refunded: refunded.id });
    await pay(trx.address, '40', 'TRX');
    await pay(usdt.address, String(usdt.currencies_amounts.USDT), 'USDT');
    await pay(multiple.address, '12', 'TRX');
    const flaggedUsdt = await chain.buildSignedUsdtTransfer(flagged.privateKey, refunded.address, 20n * TRX, 100n * TRX);
    await chain.broadcast(flaggedUsdt.signedTx);

    // A TRX payout to two activated targets.
    const targets = [{ address: randomAddress(), amount: 1.5 }, { address: randomAddress(), amount: 2 }];
    for (const t of targets) await pay(t.address, '1', 'TRX');
    await waitFor('targets activated', async () => (await chain.isActivated(targets[0]!.address)) && chain.isActivated(targets[1]!.address));
    const payout = await post('/payment/multiple_transfer/create', { currency: 'TRX', target_wallets: targets });
    ids.payout = payout.id;
    await pay(payout.address, String(payout.currencies_amounts.TRX), 'TRX');

    // Top-ups of the merchant's balances: TRX to the service-fee balance, USDT to the activation balance.
    await pay(wallets.topup, '12.5', 'TRX');
    await pay(wallets.activation, '3', 'USDT');

    await waitStatus(trx.id, 'COMPLETED');
    await waitStatus(usdt.id, 'COMPLETED');
    await waitStatus(refunded.id, 'AML_FAILED');
    await waitStatus(payout.id, 'COMPLETED');
    await waitFor('the MULTIPLE payment forwarded', async () => (await app.prisma.transaction.count({ where: { invoiceId: multiple.id, type: 'PAYMENT', paymentState: 'SETTLED' } })) === 1, 30_000);
    await waitFor('both top-ups credited', async () => (await app.prisma.transaction.count({ where: { merchantId, type: 'TOPUP', invoiceId: null, paymentState: 'SETTLED' } })) === 2, 30_000);
    await waitFor('gas returned', async () => (await app.prisma.transaction.count({ where: { gasReturnDue: true } })) === 0, 30_000);

    // Every balance change is booked with its cause.
    const kinds = (await app.prisma.merchantBalanceEntry.findMany({ where: { merchantId } })).map((e) => e.kind);
    assert.equal(kinds.filter((k) => k === 'AML_CHECK').length, 4, 'four payments screened');
    assert.equal(kinds.filter((k) => k === 'TOPUP_CREDIT').length, 2);
    assert.ok(kinds.includes('NETWORK_FEE'), 'the USDT forward and its gas charged to the activation balance');
    const refund = await app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: refunded.id, type: 'PAYMENT' } });
    assert.ok(refund.costSun !== null && refund.trxRateUsd !== null && refund.usdtRateUsd !== null, 'the refund kept the figures of its deduction');

    await assertReconciled(app.prisma, chain);
    const ok = reconcile();
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /balanced/);
    assert.match(ok.stdout, /4 invoices, 1 payouts and 1 merchants proven/);
  });

  it('fails on an edited transfer_amounts input (received_units)', async () => {
    const where = { invoiceId_currency: { invoiceId: ids.trx, currency: 'TRX' as const } };
    await app.prisma.invoiceCurrency.update({ where, data: { receivedUnits: { increment: 1n } } });
    await mustFail(new RegExp(`MISMATCH invoice ${ids.trx} transfer_amounts TRX input: reported 40000001, its settled payments brought 40000000`), () =>
      app.prisma.invoiceCurrency.update({ where, data: { receivedUnits: { decrement: 1n } } }),
    );
  });

  it('fails on an edited cost', async () => {
    await app.prisma.invoice.update({ where: { id: ids.usdt }, data: { costUnits: { increment: 10n } } });
    await mustFail(new RegExp(`MISMATCH invoice ${ids.usdt} cost: reported 250010 USDT, the fees kept from its settled payments make 250000`), () =>
      app.prisma.invoice.update({ where: { id: ids.usdt }, data: { costUnits: { decrement: 10n } } }),
    );
  });

  it('fails on a changed FEE_KEPT row', async () => {
    const payment = await app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: ids.multiple, type: 'PAYMENT' } });
    const row = await app.prisma.ledgerEntry.findFirstOrThrow({ where: { paymentId: payment.id, kind: 'FEE_KEPT' } });
    assert.equal(row.units, 120_000n, '1 % of 12 TRX');
    await app.prisma.ledgerEntry.update({ where: { id: row.id }, data: { units: 60_000n } });
    await mustFail(new RegExp(`MISMATCH invoice ${ids.multiple} payment ${payment.id}: FEE_KEPT 60000 TRX, the fee rule gives 120000`), () =>
      app.prisma.ledgerEntry.update({ where: { id: row.id }, data: { units: row.units } }),
    );
  });

  it('fails on a status that disagrees with the payments', async () => {
    // Exactly paid, reported as overpaid (written past the one door, as a bug or a hand edit would).
    await app.prisma.invoice.update({ where: { id: ids.trx }, data: { status: 'OVERPAID' } });
    await mustFail(new RegExp(`MISMATCH invoice ${ids.trx} status OVERPAID: its settled payments say paid within the tolerance`), () =>
      app.prisma.invoice.update({ where: { id: ids.trx }, data: { status: 'COMPLETED' } }),
    );
    // A returned payment does not make an invoice paid.
    await app.prisma.invoice.update({ where: { id: ids.refunded }, data: { status: 'COMPLETED' } });
    await mustFail(new RegExp(`MISMATCH invoice ${ids.refunded} status COMPLETED: its settled payments say nothing counted`), () =>
      app.prisma.invoice.update({ where: { id: ids.refunded }, data: { status: 'AML_FAILED' } }),
    );
  });

  it('fails on an edited merchant balance', async () => {
    const was = (await app.prisma.merchant.findUniqueOrThrow({ where: { id: merchantId } })).balanceSun;
    await app.prisma.merchant.update({ where: { id: merchantId }, data: { balanceSun: was + 5n * TRX } });
    await mustFail(new RegExp(`MISMATCH merchant ${merchantId} balance: reported ${was + 5n * TRX} sun, its ledger sums to ${was}`), () =>
      app.prisma.merchant.update({ where: { id: merchantId }, data: { balanceSun: was } }),
    );
  });

  it('fails on a NETWORK_FEE row that differs from the chain receipt, even with the balance kept in step', async () => {
    const entry = await app.prisma.merchantBalanceEntry.findFirstOrThrow({ where: { merchantId, kind: 'NETWORK_FEE' } });
    const send = await app.prisma.transaction.findUniqueOrThrow({ where: { id: entry.transactionId! } });
    const burned = (await chain.getTransactionStatus(send.trnHash)).feeSun;
    assert.equal(entry.deltaSun, -burned);
    const shift = async (sun: bigint) => {
      await app.prisma.merchantBalanceEntry.update({ where: { id: entry.id }, data: { deltaSun: { increment: sun } } });
      await app.prisma.merchant.update({ where: { id: merchantId }, data: { activationBalanceSun: { increment: sun } } });
    };
    await shift(1n);
    await mustFail(new RegExp(`MISMATCH merchant ${merchantId} NETWORK_FEE entry ${entry.id} \\(transaction ${send.id}\\): ACTIVATION ${1n - burned} sun, its cause says merchant ${merchantId} ACTIVATION ${-burned} sun`), () => shift(-1n));
  });

  // Last: the second payment really moves money and cannot be undone.
  it('fails on a payout target paid twice (a real second transfer, booked as a double-sending worker would)', async () => {
    const payout = await app.prisma.invoice.findUniqueOrThrow({ where: { id: ids.payout } });
    const target = parseStoredTargets(payout.targetWallets)[0]!;
    const units = tokenUnits(target.amount);
    const first = await app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: payout.id, sendPurpose: 'PAYOUT_TARGET', sendIndex: 0, sendState: 'CONFIRMED' } });
    // The payout address keeps only its fee: it is topped up again so that the second payment can be made.
    const leftBefore = await chain.getTrxBalance(payout.address);
    await pay(payout.address, '5', 'TRX');
    await waitFor('the extra top-up recorded', async () => (await app.prisma.transaction.count({ where: { invoiceId: payout.id, type: 'TOPUP' } })) === 2, 30_000);
    assert.ok((await chain.getTrxBalance(payout.address)) === leftBefore + 5n * TRX);

    const signed = await chain.buildSignedTrxTransfer(invoiceAccount(payout).privateKey, target.address, units);
    await chain.broadcast(signed.signedTx);
    const landed = await waitFor('the second payment solidified', async () => {
      const s = await chain.getTransactionStatus(signed.txId);
      return s.status === 'confirmed' ? s : null;
    }, 30_000);
    await app.prisma.$transaction(async (tx) => {
      const row = await tx.transaction.create({
        data: {
          merchantId: payout.merchantId, invoiceId: payout.id, type: 'TRANSFER', trnHash: signed.txId, chainRef: `${signed.txId}:send`,
          fromAddress: payout.address, toAddress: target.address, amountUnits: units, currency: 'TRX', eventId: first.eventId,
          sendState: 'CONFIRMED', signedTx: signed.signedTx as object, expiresAt: new Date(signed.expiresAt), feeSun: landed.feeSun, blockNumber: landed.blockNumber,
          sendKey: `${first.sourceId}:target-0:2`, sendPurpose: 'PAYOUT_TARGET', sendIndex: 0, sendAttempt: 2, costPayer: 'PAYOUT', sourceId: first.sourceId,
        },
      });
      await bookSendLanded(tx, row, landed.feeSun, true);
    });
    const bad = reconcile();
    assert.equal(bad.status, 1, bad.stdout);
    assert.match(bad.stderr, new RegExp(`MISMATCH payout ${payout.id} target 0 \\(${target.address}\\): paid 2 times \\(sends ${first.trnHash}, ${signed.txId}\\)`));
    // The ledger itself balances: the second payment is booked like the first, so only the proof of the payout sees it.
    assert.doesNotMatch(bad.stderr, /MISMATCH address/);
  });
});
