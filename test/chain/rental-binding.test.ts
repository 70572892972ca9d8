import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TronWeb } from 'tronweb';
import { DEVNET_RENTAL_API_KEY, DEVNET_RENTAL_API_SECRET } from '@/devnet/rentalAccount';
import { systemActor } from '@/lib/audit/record';
import type { Transaction } from '@/lib/generated/prisma/client';
import { requestPayoutReturn } from '@/lib/payouts/returns';
import { waitFor } from '../helpers/devnet';
import { assertReconciled, TEST_RULES } from '../helpers/reconcile';
import { SettlementStack } from '../helpers/settlementStack';

// Issue 35, with a rental in place of the pool: a USDT forward paid with rented energy relies on the
// provider's DelegateResource, a transaction of the provider's that no send of ours can reference
// (TaPoS binds only what the send names). Built on it before it is final, a reorganisation that left
// the delegation out would run the forward without the energy, burning TRX at the address: at a
// static address, a customer's held TRX. So the send waits until every delegation to the address is
// final (lib/energy/rentals.ts). Final 150 blocks deep at 100 ms: 15 s before a block is final.
const DEPTH = 150;
const TRX = 1_000_000n;
const USDT = 1_000_000n;

/** The stored send (attempt 1) never went out and was proven dead; attempt 2 went out on energy rented again. */
function assertDeadThenSentAgain(sends: Transaction[], storedTxId: string, what: string): void {
  assert.deepEqual(
    sends.map((r) => [r.sendAttempt, r.sendState, r.energySource, r.blockNumber === null]),
    [
      [1, 'FAILED', 'RENTAL', true],
      [2, 'CONFIRMED', 'RENTAL', false],
    ],
    `the stored ${what} never went out and was proven dead; the second attempt went out on energy rented again`,
  );
  assert.equal(sends[0]!.trnHash, storedTxId);
}

describe('a send paid with rented energy waits for the provider\'s delegation to be final (issue 35)', () => {
  const s = new SettlementStack();
  const customer = TronWeb.createRandom() as unknown as { address: string; privateKey: string };
  const env: Record<string, string> = {
    ENERGY_POOL: 'off',
    ENERGY_RENTAL_WAIT_SECONDS: '3',
    ENERGY_RENTAL_API_KEY: DEVNET_RENTAL_API_KEY,
    ENERGY_RENTAL_API_SECRET: DEVNET_RENTAL_API_SECRET,
    SEND_RETRY_BASE_MS: '300',
    HEAD_SCAN_POLL_MS: '50',
    TRON_TX_EXPIRATION_MS: '10000',
  };

  before(async () => {
    // The worker's environment is read once the devnet is up (its URL is the provider's).
    await s.start(env, async () => {
      env.ENERGY_RENTAL_URL = s.devnet.url;
      await s.pay(customer.address, '1000', 'TRX');
      await s.pay(customer.address, '1000', 'USDT');
    }, { blockMs: 100, solidifiedDepth: DEPTH });
  });
  after(() => s.stop());

  /** The provider's delegation to `address` in the blocks from `fromBlock` to the head, or null. */
  async function delegationTo(address: string, fromBlock: number): Promise<{ txid: string; block: number } | null> {
    const hex = TronWeb.address.toHex(address).toLowerCase();
    const head = await s.chain.getBlockNumber();
    for (let from = fromBlock; from <= head; from += 100) {
      const reply = (await (await fetch(`${s.devnet.url}/wallet/getblockbylimitnext`, { method: 'POST', body: JSON.stringify({ startNum: from, endNum: Math.min(from + 100, head + 1) }) })).json()) as {
        block?: { block_header: { raw_data: { number: number } }; transactions?: { txID: string; raw_data: { contract: { type: string; parameter: { value: { receiver_address?: string } } }[] } }[] }[];
      };
      for (const b of reply.block ?? []) {
        for (const tx of b.transactions ?? []) {
          const c = tx.raw_data.contract[0]!;
          if (c.type === 'DelegateResourceContract' && c.parameter.value.receiver_address?.toLowerCase() === hex) return { txid: tx.txID, block: b.block_header.raw_data.number };
        }
      }
    }
    return null;
  }

  test('a reorganisation that leaves the rented energy out cannot burn the held TRX at a static address: the forward is built only once the delegation is final', async () => {
    const { key, target } = await s.newMerchant();
    const inv = await s.invoice(key, { type: 'MULTIPLE', currencies: ['USDT'] });
    // A customer's 20 TRX at the static USDT address: not accepted, held for the merchant (and the address an account).
    const heldPaid = await s.chain.buildSignedTrxTransfer(customer.privateKey, inv.address, 20n * TRX);
    await s.chain.broadcast(heldPaid.signedTx);
    const heldRow = await waitFor('the TRX recorded', () => s.app.prisma.transaction.findFirst({ where: { trnHash: heldPaid.txId, type: 'PAYMENT' } }), 60_000);
    const held = await s.finalizing(() => s.paymentState(heldRow.id, ['HELD'], 120_000));

    const paid = await s.chain.buildSignedUsdtTransfer(customer.privateKey, inv.address, 50n * USDT, 100n * TRX);
    await s.chain.broadcast(paid.signedTx);
    const payment = await waitFor('the USDT recorded', () => s.app.prisma.transaction.findFirst({ where: { trnHash: paid.txId, type: 'PAYMENT' } }), 60_000);
    // The worker rents the forward's energy; the provider delegates it in a block that is not final yet.
    const rental = await waitFor('the rental filled', () => s.app.prisma.energyRental.findFirst({ where: { paymentId: payment.id, state: 'FILLED' } }), 60_000);
    const delegation = await waitFor('the provider\'s delegation in a block', () => delegationTo(inv.address, payment.blockNumber ?? 1), 30_000);
    // Thirty blocks on (3 s at 100 ms, far from final): a forward built on the energy at the head would be out and in a block by now.
    await waitFor('thirty blocks on', async () => ((await s.chain.getBlockNumber()) >= delegation.block + 30 ? true : null), 30_000);
    assert.ok((await s.chain.getBlockNumber()) < delegation.block + DEPTH, 'the delegation is not final yet');
    const early = await s.app.prisma.transaction.findMany({ where: { sourceId: payment.id, sendPurpose: 'FORWARD' } });

    // The reorganisation leaves the delegation out: the energy is gone, the held TRX stays.
    const reorg = await s.devnet.reorg({ fromBlock: delegation.block, leaveOut: [delegation.txid] });
    assert.ok((await s.chain.getTrxBalance(inv.address)) >= held.amountUnits, `the held ${held.amountUnits} sun are still at the address after the reorganisation (${await s.chain.getTrxBalance(inv.address)}; forwards before it: ${JSON.stringify(early.map((r) => [r.trnHash, r.sendState]))}): ${JSON.stringify(reorg.dropped)}`);
    assert.deepEqual(early.map((r) => [r.trnHash, r.sendState]), [], `no forward is built on rented energy whose delegation is not final (order ${rental.outTradeNo})`);

    // The rental is given up (its energy never comes back) and the forward burns gas the gas wallet sends instead, once.
    await s.finalizing(() => s.paymentState(payment.id, ['SETTLED'], 180_000));
    const forwards = await s.app.prisma.transaction.findMany({ where: { sourceId: payment.id, sendPurpose: 'FORWARD', sendState: 'CONFIRMED' } });
    assert.equal(forwards.length, 1);
    assert.equal(await s.chain.getUsdtBalance(target), forwards[0]!.amountUnits);
    assert.equal((await s.app.prisma.transaction.findUniqueOrThrow({ where: { id: held.id } })).paymentState, 'HELD');
    assert.ok((await s.chain.getTrxBalance(inv.address)) >= held.amountUnits, 'the held TRX is still at the address');
    await s.finalizing(() => assertReconciled(s.app.prisma, s.chain, 60_000, TEST_RULES));
  });

  test('a stored forward whose rented energy the provider took back early is followed to its death and sent again, not kept back for ever', async () => {
    const { key, target } = await s.newMerchant();
    const inv = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['USDT'] });
    // The provider takes its delegation back 10 s after making it; the node refuses the forward's broadcasts (busy)
    // meanwhile, so the forward is built and stored on the rented energy and is still not out when the energy goes.
    await s.devnet.rental.set({ period_ms: 10_000 });
    await s.devnet.fault.refuse({ from: inv.address, code: 'SERVER_BUSY', message: 'Server busy' });
    let first;
    let payment;
    try {
      await s.pay(inv.address, String(inv.currencies_amounts.USDT), 'USDT');
      payment = await waitFor('the USDT recorded', () => s.app.prisma.transaction.findFirst({ where: { invoiceId: inv.id, type: 'PAYMENT' } }), 60_000);
      const paymentId = payment.id;
      first = await s.finalizing(() => waitFor('the forward stored and not out', () => s.app.prisma.transaction.findFirst({ where: { sourceId: paymentId, sendPurpose: 'FORWARD', sendState: 'SIGNED', error: { not: null } } }), 60_000));
      assert.equal(first.energySource, 'RENTAL', `the forward was built on rented energy (${first.error})`);
      // Later orders last their period.
      await s.devnet.rental.reset();
      await waitFor('the provider\'s delegation taken back', async () => ((await s.chain.getDelegatedInSun(inv.address, 'ENERGY')) === 0n ? true : null), 60_000);
    } finally {
      await s.devnet.fault.clear();
    }
    // Kept back (its energy is gone, burning it would spend TRX at the address), it expires, is proven dead, and the next attempt rents again.
    const settled = await s.finalizing(() => s.paymentState(payment.id, ['SETTLED'], 120_000));
    const forwards = await s.app.prisma.transaction.findMany({ where: { sourceId: settled.id, sendPurpose: 'FORWARD' }, orderBy: { id: 'asc' } });
    assertDeadThenSentAgain(forwards, first.trnHash, 'forward');
    assert.equal(await s.chain.getUsdtBalance(target), forwards[1]!.amountUnits, 'the merchant was paid once');
    const rentals = await s.app.prisma.energyRental.findMany({ where: { paymentId: settled.id }, orderBy: { id: 'asc' } });
    assert.deepEqual(rentals.map((r) => [r.attempt, r.state]), [[1, 'FILLED'], [2, 'FILLED']]);
    await s.finalizing(() => assertReconciled(s.app.prisma, s.chain, 60_000, TEST_RULES));
  });

  test("a payout's stored return whose rented energy the provider took back early is followed to its death and sent again, not kept back for ever", async () => {
    // The forward's case above, through a payout's return (lib/payouts/returns.ts), which follows a kept-back send the same way.
    const { key } = await s.newMerchant();
    const payout = await s.finalizing(() => s.timedOutShortPayout(key, 60_000));
    const to = (TronWeb.createRandom() as unknown as { address: string }).address;
    await s.devnet.rental.set({ period_ms: 10_000 });
    await s.devnet.fault.refuse({ from: payout.address, code: 'SERVER_BUSY', message: 'Server busy' });
    let first;
    try {
      await requestPayoutReturn(s.app.prisma, payout.id, to, systemActor('test'));
      first = await s.finalizing(() => waitFor('the return stored and not out', () => s.app.prisma.transaction.findFirst({ where: { invoiceId: payout.id, sendPurpose: 'PAYOUT_RETURN', sendState: 'SIGNED', error: { not: null } } }), 60_000));
      assert.equal(first.energySource, 'RENTAL', `the return was built on rented energy (${first.error})`);
      await s.devnet.rental.reset();
      await waitFor('the provider\'s delegation taken back', async () => ((await s.chain.getDelegatedInSun(payout.address, 'ENERGY')) === 0n ? true : null), 60_000);
    } finally {
      await s.devnet.fault.clear();
    }
    await s.finalizing(() => waitFor('the return made', async () => (await s.app.prisma.payoutReturn.findUniqueOrThrow({ where: { invoiceId: payout.id } })).returnedAt, 120_000));
    const returns = await s.app.prisma.transaction.findMany({ where: { invoiceId: payout.id, sendPurpose: 'PAYOUT_RETURN' }, orderBy: { id: 'asc' } });
    assertDeadThenSentAgain(returns, first.trnHash, 'return');
    assert.equal(await s.chain.getUsdtBalance(to), 3n * USDT, 'returned once');
    const rentals = await s.app.prisma.energyRental.findMany({ where: { purpose: 'PAYOUT_RETURN', receiveAddress: payout.address }, orderBy: { id: 'asc' } });
    assert.deepEqual(rentals.map((r) => [r.attempt, r.state]), [[1, 'FILLED'], [2, 'FILLED']]);
    await s.finalizing(() => assertReconciled(s.app.prisma, s.chain, 60_000, TEST_RULES));
  });
});
