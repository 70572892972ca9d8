import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TronWeb } from 'tronweb';
import { waitFor } from '../helpers/devnet';
import { assertReconciled } from '../helpers/reconcile';
import { dbGate as openDbGate } from '../helpers/dbGate';
import { bind, SettlementStack } from '../helpers/settlementStack';

const TRX = 1_000_000n;
const USDT = 1_000_000n;

/**
 * Energy and gas (issue 22, cases 2, 6 and 7) on the devnet with the real worker: a change of
 * the energy price or of a forward's energy never burns a send or ends a paid invoice ERROR, no
 * gas is bought for a send that will not be made, and gas left after a failed send goes back.
 * One send that fails on chain for good fails a payment here (SEND_MAX_ATTEMPTS=1), so a failure
 * wrongly counted shows at once.
 */
describe('energy safety: a price or estimate change never burns a send, and gas is never stranded', () => {
  const s = new SettlementStack();
  const { newMerchant, invoice, statusOf, dump, paymentOf, paymentState } = bind(s);
  const { flagged, gasWallet } = s;
  const customer = TronWeb.createRandom() as unknown as { address: string; privateKey: string };
  const WORKER_ENV = {
    TRON_TX_EXPIRATION_MS: '10000',
    SEND_MAX_ATTEMPTS: '1',
    SEND_RETRY_BASE_MS: '500',
    SEND_RETRY_MAX_MS: '2000',
  };
  const pay = async (address: string, amount: string, currency: 'TRX' | 'USDT') => void (await s.pay(address, amount, currency));

  /** A customer's wallet pays with a generous fee_limit of its own (the devnet faucet's payment is sized by an estimate, at whatever price it read). */
  async function customerPays(address: string, units: bigint) {
    const sent = await s.chain.buildSignedUsdtTransfer(customer.privateKey, address, units, 100n * TRX);
    await s.chain.broadcast(sent.signedTx);
  }
  /** The invoice's first status after ACTIVE (COMPLETED, or ERROR when a forward failed for good). */
  const verdict = async (key: string, id: number, timeoutMs = 90_000) => {
    const status = await waitFor(`invoice ${id} to leave ACTIVE`, async () => {
      const s = (await statusOf(key, id)).status;
      return s !== 'ACTIVE' ? s : null;
    }, timeoutMs).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${await dump(id)}`);
    });
    return status;
  };
  const trxBooked = async (address: string) => (await s.app.prisma.ledgerEntry.aggregate({ where: { address, currency: 'TRX' }, _sum: { deltaUnits: true } }))._sum.deltaUnits ?? 0n;

  /**
   * A paid invoice whose forward met a higher price or a bigger estimate: delivered, COMPLETED
   * without an ERROR webhook, at most one gas top-up, and no forward burned by running out of energy.
   */
  async function deliveredSafely(key: string, invoiceId: number, target: string, merchantHadUnits = 0n) {
    const status = await verdict(key, invoiceId);
    assert.equal(status, 'COMPLETED', await dump(invoiceId));
    const payment = await s.app.prisma.transaction.findFirstOrThrow({ where: { invoiceId, type: 'PAYMENT' } });
    const sends = await s.app.prisma.transaction.findMany({ where: { sourceId: payment.id }, orderBy: { id: 'asc' } });
    const forwards = sends.filter((s) => s.sendPurpose === 'FORWARD');
    const landed = forwards.filter((s) => s.sendState === 'CONFIRMED');
    assert.equal(landed.length, 1, await dump(invoiceId));
    assert.deepEqual(forwards.filter((s) => s.blockNumber !== null && s.sendState === 'FAILED').map((s) => s.error), [], 'no forward landed and burned its gas');
    const gas = sends.filter((s) => s.sendPurpose === 'FORWARD_GAS');
    assert.ok(gas.length >= 1 && gas.length <= 2, `the gas send and at most one top-up: ${await dump(invoiceId)}`);
    await waitFor('the USDT at the merchant', async () => (await s.chain.getUsdtBalance(target)) === merchantHadUnits + landed[0]!.amountUnits);
    await waitFor('the COMPLETED webhook', async () => s.hooks.some((h) => h.id === invoiceId && h.status === 'COMPLETED'));
    assert.ok(!s.hooks.some((h) => h.id === invoiceId && h.status === 'ERROR'), 'no ERROR webhook');
  }

  const dbGate = (sql: string, params: unknown[]) => openDbGate(s.app.env.DATABASE_URL!, sql, params);


  /**
   * Stops the worker after it has signed the forward of a payment to `address` (its gas arrived)
   * and before it is stored and broadcast: the test holds the address's one "send in flight" slot
   * (the partial unique index) in an open transaction, so the worker's insert waits on it. `meanwhile`
   * changes the chain; then the slot is let go.
   */
  async function betweenGasAndBroadcast(merchantId: number, invoiceId: number, address: string, target: string, payIt: () => Promise<void>, meanwhile: () => Promise<void>) {
    const gate = await dbGate(
      `INSERT INTO transactions (merchant_id, invoice_id, type, trn_hash, chain_ref, from_address, to_address, amount_units, currency, send_state, send_purpose)
       VALUES ($1, $2, 'TRANSFER', 'gate', 'gate:send', $3, $4, 0, 'TRX', 'SIGNED', 'FORWARD')`,
      [merchantId, invoiceId, address, target],
    );
    try {
      await payIt();
      await waitFor('a signed forward waiting to be stored', async () => (await gate.waiting('%INSERT INTO%transactions%')).length > 0, 60_000).catch(async (err: Error) => {
        throw new Error(`${err.message}: ${await dump(invoiceId)}`);
      });
      // In a block, final or not: the forward is signed once its gas is in a head block, bound to
      // that block (issue 24); whether the gas is CONFIRMED by then depends on when the scanner made
      // the payment final (every SCAN_POLL_MS), not on anything this test is about.
      const gas = await s.app.prisma.transaction.findFirst({ where: { invoiceId, sendPurpose: 'FORWARD_GAS', blockNumber: { not: null }, sendState: { in: ['BROADCAST', 'CONFIRMED'] } } });
      assert.ok(gas, `the gas arrived first: ${await dump(invoiceId)}`);
      await meanwhile();
    } finally {
      await gate.release();
    }
  }

  before(() =>
    s.start(WORKER_ENV, async () => {
      await pay(flagged.address, '10', 'USDT');
      await pay(customer.address, '1000', 'TRX');
      await pay(customer.address, '500', 'USDT');
    }),
  );
  after(() => s.stop());

  it('case 2: the energy price rises 100 -> 210 after the invoice is issued: the forward is sized at the new price, COMPLETED, nothing burned', async () => {
    const { key, target } = await newMerchant();
    // The worker has already forwarded at the old price (a price it kept would be that one).
    const earlier = await invoice(key, { type: 'SINGLE', amount: 20, currencies: ['USDT'] });
    await pay(earlier.address, '20', 'USDT');
    assert.equal(await verdict(key, earlier.id), 'COMPLETED', await dump(earlier.id));
    const had = await waitFor('the first forward at the merchant', async () => {
      const units = await s.chain.getUsdtBalance(target);
      return units > 0n ? units : null;
    });
    const inv = await invoice(key, { type: 'SINGLE', amount: 30, currencies: ['USDT'] });
    await s.devnet.setChainParameters({ energyFeeSun: 210n });
    try {
      await customerPays(inv.address, 30n * USDT);
      await deliveredSafely(key, inv.id, target, had);
    } finally {
      await s.devnet.setChainParameters({ energyFeeSun: 100n });
    }
  });

  it('case 2: the price rises after the gas arrived and before the forward is broadcast: it is not broadcast underpriced, the gas is topped up once, COMPLETED', async () => {
    const { merchant, key, target } = await newMerchant();
    const inv = await invoice(key, { type: 'SINGLE', amount: 30, currencies: ['USDT'] });
    try {
      await betweenGasAndBroadcast(merchant.id, inv.id, inv.address, target, () => pay(inv.address, '30', 'USDT'), () => s.devnet.setChainParameters({ energyFeeSun: 210n }));
      await deliveredSafely(key, inv.id, target);
    } finally {
      await s.devnet.setChainParameters({ energyFeeSun: 100n });
    }
  });

  it('case 2: the price rises after the gas arrived and before the forward is built: the gas is topped up for the same attempt first, then the forward goes out once', async () => {
    const { merchant, key, target } = await newMerchant();
    const inv = await invoice(key, { type: 'SINGLE', amount: 30, currencies: ['USDT'] });
    // Booking the gas send as landed charges its burn to the merchant's activation balance: the test
    // holds the merchant row, so the worker stops there, with the gas at the address and no forward built.
    const gate = await dbGate('SELECT id FROM merchants WHERE id = $1 FOR NO KEY UPDATE', [merchant.id]);
    try {
      await pay(inv.address, '30', 'USDT');
      await waitFor('the gas landed and being booked', async () => (await gate.waiting('%merchants%')).length > 0, 60_000).catch(async (err: Error) => {
        throw new Error(`${err.message}: ${await dump(inv.id)}`);
      });
      assert.equal(await s.app.prisma.transaction.count({ where: { invoiceId: inv.id, sendPurpose: 'FORWARD' } }), 0, 'no forward built yet');
      await s.devnet.setChainParameters({ energyFeeSun: 210n });
    } finally {
      await gate.release();
    }
    try {
      await deliveredSafely(key, inv.id, target);
      const payment = await s.app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: inv.id, type: 'PAYMENT' } });
      const sends = await s.app.prisma.transaction.findMany({ where: { sourceId: payment.id }, orderBy: { id: 'asc' } });
      assert.deepEqual(sends.filter((s) => s.sendPurpose === 'FORWARD_GAS').map((s) => [s.sendIndex, s.sendAttempt]), [[1, 1], [1, 2]], `the gas of the first attempt, then its top-up: ${await dump(inv.id)}`);
      assert.deepEqual(sends.filter((s) => s.sendPurpose === 'FORWARD').map((s) => s.sendState), ['CONFIRMED'], 'the forward was built once and never rebuilt');
    } finally {
      await s.devnet.setChainParameters({ energyFeeSun: 100n });
    }
  });

  it("case 2: the merchant's target wallet is emptied of USDT between the estimate and the send (64,285 -> 130,285 energy): COMPLETED, nothing burned", async () => {
    const { merchant, key, target } = await newMerchant();
    // The target holds USDT, so the forward is estimated as a transfer to a holder.
    await s.devnet.setBalance(target, { usdtUnits: USDT });
    await waitFor('the target holding USDT', async () => (await s.chain.getUsdtBalance(target)) === USDT);
    const inv = await invoice(key, { type: 'SINGLE', amount: 30, currencies: ['USDT'] });
    await betweenGasAndBroadcast(merchant.id, inv.id, inv.address, target, () => pay(inv.address, '30', 'USDT'), async () => {
      await s.devnet.setBalance(target, { usdtUnits: 0n });
      await waitFor('the target emptied', async () => (await s.chain.getUsdtBalance(target)) === 0n);
    });
    await deliveredSafely(key, inv.id, target);
  });

  it('case 2: a forward that ran out of energy because the price rose while it was on its way is retried at the new price, never a terminal ERROR', async () => {
    const { key, target } = await newMerchant();
    const inv = await invoice(key, { type: 'SINGLE', amount: 30, currencies: ['USDT'] });
    // The forward is held 50 blocks before it executes, against the price it then meets.
    await s.devnet.fault.delay({ from: inv.address, blocks: 50, count: 1 });
    try {
      await pay(inv.address, '30', 'USDT');
      await waitFor('the forward on its way', () => s.app.prisma.transaction.findFirst({ where: { invoiceId: inv.id, sendPurpose: 'FORWARD', sendState: 'BROADCAST' } }), 60_000);
      await s.devnet.setChainParameters({ energyFeeSun: 210n });
      assert.equal(await verdict(key, inv.id), 'COMPLETED', await dump(inv.id));
      const forwards = await s.app.prisma.transaction.findMany({ where: { invoiceId: inv.id, sendPurpose: 'FORWARD' }, orderBy: { id: 'asc' } });
      assert.deepEqual(forwards.map((f) => f.sendState), ['FAILED', 'CONFIRMED'], await dump(inv.id));
      assert.match(forwards[0]!.error ?? '', /OUT_OF_ENERGY/);
      await waitFor('the USDT at the merchant', async () => (await s.chain.getUsdtBalance(target)) === forwards[1]!.amountUnits);
      await waitFor('the COMPLETED webhook', async () => s.hooks.some((h) => h.id === inv.id && h.status === 'COMPLETED'));
      assert.ok(!s.hooks.some((h) => h.id === inv.id && h.status === 'ERROR'), 'no ERROR webhook');
    } finally {
      await s.devnet.fault.clear();
      await s.devnet.setChainParameters({ energyFeeSun: 100n });
    }
  });

  it('case 6: a USDT forward that fails on chain for good gets no gas for an attempt that will not be made, and its gas left goes back to the gas wallet', async () => {
    const { key } = await newMerchant();
    const inv = await invoice(key, { type: 'SINGLE', amount: 20, currencies: ['USDT'] });
    await s.devnet.fault.fail({ from: inv.address, result: 'REVERT', count: 1 });
    await pay(inv.address, '20', 'USDT');
    const payment = await paymentOf(inv.id, 20n * USDT);
    const failed = await paymentState(payment.id, ['FAILED', 'SETTLED']);
    assert.equal(failed.paymentState, 'FAILED', await dump(inv.id));
    const gas = await s.app.prisma.transaction.findMany({ where: { sourceId: payment.id, sendPurpose: 'FORWARD_GAS' } });
    assert.deepEqual(gas.map((g) => g.sendIndex), [1], `gas for the one attempt made only: ${await dump(inv.id)}`);
    try {
      await waitFor('the gas left returned', async () => (await s.chain.getTrxBalance(inv.address)) === 0n && (await trxBooked(inv.address)) === 0n, 30_000);
    } catch (err) {
      throw new Error(`${(err as Error).message}: the address holds ${await s.chain.getTrxBalance(inv.address)} sun; ${await dump(inv.id)}`);
    }
    const back = await s.app.prisma.transaction.findFirstOrThrow({ where: { sourceId: payment.id, sendPurpose: 'GAS_RETURN', sendState: 'CONFIRMED' } });
    assert.equal(back.toAddress, gasWallet.address);
    assert.ok(back.amountUnits > TRX, `the unburned gas came back: ${back.amountUnits} sun`);
    // The payment's own funds stay where they are, held.
    assert.equal(await s.chain.getUsdtBalance(inv.address), 20n * USDT);
    assert.equal((await s.app.prisma.ledgerEntry.findFirstOrThrow({ where: { transactionId: payment.id, kind: 'HELD' } })).units, 20n * USDT);
    assert.equal((await statusOf(key, inv.id)).status, 'ERROR');
  });

  it('case 7: a flagged 1.5 USDT payment whose refund would cost more than it returns is held before any gas is sent: nothing stranded', async () => {
    const { key } = await newMerchant({ aml: true });
    const inv = await invoice(key, { type: 'SINGLE', amount: 20, currencies: ['USDT'] });
    const sent = await s.chain.buildSignedUsdtTransfer(flagged.privateKey, inv.address, 1_500_000n, 50n * TRX);
    await s.chain.broadcast(sent.signedTx);
    const payment = await paymentOf(inv.id, 1_500_000n);
    const held = await paymentState(payment.id, ['HELD', 'REFUNDED', 'FAILED']);
    assert.equal(held.paymentState, 'HELD', await dump(inv.id));
    assert.equal(held.heldReason, 'AML failed, and returning it would cost more than it is worth');
    assert.equal(await s.app.prisma.transaction.count({ where: { sourceId: payment.id } }), 0, `no gas sent at all: ${await dump(inv.id)}`);
    assert.equal(await s.chain.getTrxBalance(inv.address), 0n, 'nothing stranded at the address');
    assert.equal(await s.chain.getUsdtBalance(inv.address), 1_500_000n, 'the payment waits at its address, held');
  });

  // Last: every payment above is closed; every unit is in the books and on s.chain.
  it('balances the books after all of the above', async () => {
    await assertReconciled(s.app.prisma, s.chain);
  });
});
