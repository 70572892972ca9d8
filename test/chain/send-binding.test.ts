import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { TronWeb } from 'tronweb';
import type { SignedTransfer } from '@/lib/chain/types';
import type { Transaction } from '@/lib/generated/prisma/client';
import { reconcile } from '@/lib/reconcile/reconcile';
import { freePort } from '../helpers/app';
import { dbGate } from '../helpers/dbGate';
import { waitFor } from '../helpers/devnet';
import { assertReconciled, TEST_RULES } from '../helpers/reconcile';
import { SettlementStack } from '../helpers/settlementStack';

// Issue 35, cases 1 and 2: a send made before finality is bound (TaPoS) to everything it relies on,
// whoever made it: another payment's lending at the address it spends from (by a forward, and by a
// refund of a payment AML flagged), a third party's transfer that made its recipient an account. A
// reorganisation that leaves that out replaces the block the send references, so the send can
// never execute without it (docs/worker.md, "Forwarding before finality"). And what is held at an address is proven to be there (`npm run reconcile`), and a
// negative gas balance never builds a 0-sun transfer. The tests hold the worker at one step with a
// devnet fault, a database lock or an AML answer not yet given; they assert order and outcome, never time.

// Final 150 blocks deep at 100 ms: the steps before each reorganisation have 15 s. Where a test waits
// on finality and nothing of it is to be reorganised, it makes blocks final on demand (`s.finalizing`,
// POST /devnet/solidify) instead of waiting those blocks.
const DEPTH = 150;
const TRX = 1_000_000n;
const USDT = 1_000_000n;
const AML_ID = 'aml-id';
const AML_KEY = 'aml-key';

describe('a send is bound to everything it relies on (issue 35)', () => {
  const s = new SettlementStack();
  const customer = TronWeb.createRandom() as unknown as { address: string; privateKey: string };
  // An AMLBot-style provider served here: a check of a transaction in `amlHeld` is answered only once the test lets it go.
  let provider: Server;
  const amlHeld = new Map<string, Array<() => void>>();
  const amlAsked = new Set<string>();
  // Transactions answered as high risk (90, over the merchants' limit of 50): refunded.
  const amlRisky = new Set<string>();
  const releaseAml = (txId: string) => {
    for (const answer of amlHeld.get(txId) ?? []) answer();
    amlHeld.delete(txId);
  };

  before(async () => {
    provider = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const form = Object.fromEntries(new URLSearchParams(body));
        amlAsked.add(form.hash ?? '');
        res.setHeader('content-type', 'application/json');
        const riskscore = amlRisky.has(form.hash ?? '') ? 0.9 : 0.1;
        const answer = () => res.end(JSON.stringify({ result: true, data: { uid: `uid-${form.hash}`, riskscore, signals: { exchange: 1 } } }));
        const waiting = amlHeld.get(form.hash ?? '');
        if (waiting) waiting.push(answer);
        else answer();
      });
    });
    const port = await freePort();
    await new Promise<void>((r) => provider.listen(port, '127.0.0.1', r));
    await s.start(
      {
        ENERGY_POOL_AUTOSTAKE: '300000:30000',
        SEND_RETRY_BASE_MS: '300',
        HEAD_SCAN_POLL_MS: '50',
        TRON_TX_EXPIRATION_MS: '10000',
        AML_PROVIDER: 'http',
        AML_HTTP_URL: `http://127.0.0.1:${port}/`,
        AML_ACCESS_ID: AML_ID,
        AML_ACCESS_KEY: AML_KEY,
        AML_TIMEOUT_MS: '120000',
      },
      async () => {
        await s.pay(s.gasWallet.address, '400000', 'TRX');
        await s.pay(customer.address, '10000', 'TRX');
        await s.pay(customer.address, '10000', 'USDT');
      },
      { blockMs: 100, solidifiedDepth: DEPTH },
    );
    await s.finalizing(() => s.poolStaked(240_000));
  });
  after(async () => {
    for (const txId of [...amlHeld.keys()]) releaseAml(txId);
    await s.stop();
    provider?.close();
  });

  /** The customer's wallet signs a payment (its txid known before it is broadcast), then broadcasts it unless told not to. */
  async function customerSigns(address: string, amount: bigint, token: 'TRX' | 'USDT'): Promise<SignedTransfer> {
    return token === 'TRX' ? s.chain.buildSignedTrxTransfer(customer.privateKey, address, amount) : s.chain.buildSignedUsdtTransfer(customer.privateKey, address, amount, 100n * TRX);
  }
  async function customerPays(address: string, amount: bigint, token: 'TRX' | 'USDT'): Promise<SignedTransfer> {
    const signed = await customerSigns(address, amount, token);
    await s.chain.broadcast(signed.signedTx);
    return signed;
  }
  const blockOf = async (txId: string) => waitFor(`${txId} in a block`, async () => (await s.chain.getTransactionStatus(txId)).blockNumber, 60_000);
  const blockAt = async (n: number) => (await (await fetch(`${s.devnet.url}/wallet/getblock`, { method: 'POST', body: JSON.stringify({ id_or_num: String(n), detail: false }) })).json()) as { blockID: string };
  const refOf = (row: Transaction) => (row.signedTx as { raw_data: { ref_block_bytes: string; ref_block_hash: string } }).raw_data;
  /** Whether a stored send references block `n` (its id as the chain holds it now). */
  const referencesBlock = async (row: Transaction, n: number) => {
    const ref = refOf(row);
    return ref.ref_block_bytes === n.toString(16).slice(-4).padStart(4, '0') && ref.ref_block_hash === (await blockAt(n)).blockID.slice(16, 32);
  };
  /** Holds a payment's forward at its insert: the test holds its send_key in an open transaction (a row that is no send from the address). */
  const holdForward = (paymentId: number) =>
    dbGate(
      s.app.env.DATABASE_URL!,
      `INSERT INTO transactions (type, trn_hash, chain_ref, from_address, to_address, amount_units, currency, send_state, send_purpose, send_key)
       VALUES ('STAKE', $1, $1 || ':send', $2, $2, 0, 'TRX', 'SIGNED', 'POOL_STAKE', $3)`,
      [`gate-${paymentId}`, s.gasWallet.address, `${paymentId}:forward:1`],
    );
  const paymentRow = (txId: string) => waitFor(`payment ${txId} recorded`, () => s.app.prisma.transaction.findFirst({ where: { trnHash: txId, type: 'PAYMENT' } }), 60_000);
  const sends = (paymentId: number) => s.app.prisma.transaction.findMany({ where: { sourceId: paymentId }, orderBy: { id: 'asc' } });
  const showSends = async (paymentId: number) => JSON.stringify((await sends(paymentId)).map((r) => [r.id, r.sendPurpose, r.sendAttempt, r.sendState, r.blockNumber, r.error]));

  test('case 1: a USDT forward that found another payment\'s lending at the address references the lending\'s block: a reorganisation that leaves the lending out cannot burn the held TRX beside it', async () => {
    const { key, target } = await s.newMerchant();
    const inv = await s.invoice(key, { type: 'MULTIPLE', currencies: ['USDT'] });
    // A customer's 20 TRX at the static USDT address: not accepted, held for the merchant.
    const heldPaid = await customerPays(inv.address, 20n * TRX, 'TRX');
    const held = await s.finalizing(async () => s.paymentState((await paymentRow(heldPaid.txId)).id, ['HELD'], 120_000));

    // Two USDT payments at once. The first lending to the address stays out of the chain for 30 blocks,
    // long enough to stop its payment's own forward from being stored (below) before the lending lands.
    await s.devnet.fault.delay({ blocks: 30, from: s.gasWallet.address, to: inv.address, count: 1 });
    const paid = await Promise.all([customerPays(inv.address, 50n * USDT, 'USDT'), customerPays(inv.address, 60n * USDT, 'USDT')]);
    const payments = await Promise.all(paid.map((p) => paymentRow(p.txId)));
    const lending = await waitFor('the first lending to the address signed', () => s.app.prisma.transaction.findFirst({ where: { toAddress: inv.address, sendPurpose: 'FORWARD_ENERGY' }, orderBy: { id: 'asc' } }), 60_000);
    const lender = payments.find((p) => p.id === lending.sourceId)!;
    const other = payments.find((p) => p.id !== lending.sourceId)!;
    // The lender's forward waits to be stored.
    const gate = await holdForward(lender.id);
    try {
      assert.equal((await s.chain.getTransactionStatus(lending.trnHash)).blockNumber, null, 'the gate is in place before the lending lands');
      // The other payment lends nothing (the energy is there) and forwards on the lender's energy.
      const forward = await waitFor('the other payment\'s forward', () => s.app.prisma.transaction.findFirst({ where: { sourceId: other.id, sendPurpose: 'FORWARD' } }), 90_000);
      const [lendingBlock, forwardBlock] = [await blockOf(lending.trnHash), await blockOf(forward.trnHash)];
      assert.equal(await s.app.prisma.transaction.count({ where: { sourceId: other.id, sendPurpose: 'FORWARD_ENERGY' } }), 0, `the other payment relied on the lender's energy: ${await showSends(other.id)}`);
      assert.ok(forwardBlock > lendingBlock);

      const reorg = await s.devnet.reorg({ fromBlock: lendingBlock, leaveOut: [lending.trnHash] });
      assert.ok((await s.chain.getTrxBalance(inv.address)) >= held.amountUnits, `the held ${held.amountUnits} sun are still at the address after the reorganisation (${await s.chain.getTrxBalance(inv.address)}): ${JSON.stringify(reorg.dropped)}`);
      assert.ok(await referencesBlock(forward, lendingBlock) || reorg.dropped.some((d) => d.txid === forward.trnHash), 'the forward referenced the lending\'s block');
      assert.ok(reorg.dropped.some((d) => d.txid === forward.trnHash && d.code === 'TAPOS_ERROR'), `the forward cannot be on a branch without the lending: ${JSON.stringify(reorg.dropped)}`);
    } finally {
      await gate.release();
    }

    // Both payments are forwarded in the end, each once; the held TRX never moved.
    await s.finalizing(async () => {
      for (const p of payments) await s.paymentState(p.id, ['SETTLED'], 180_000);
    });
    for (const p of payments) {
      const confirmed = (await sends(p.id)).filter((r) => r.sendPurpose === 'FORWARD' && r.sendState === 'CONFIRMED');
      assert.equal(confirmed.length, 1, await showSends(p.id));
    }
    assert.equal((await s.app.prisma.transaction.findUniqueOrThrow({ where: { id: held.id } })).paymentState, 'HELD');
    assert.ok((await s.chain.getTrxBalance(inv.address)) >= held.amountUnits, 'the held TRX is still at the address');
    assert.equal(await s.chain.getUsdtBalance(target), (await s.app.prisma.transaction.aggregate({ where: { sourceId: { in: payments.map((p) => p.id) }, sendPurpose: 'FORWARD', sendState: 'CONFIRMED' }, _sum: { amountUnits: true } }))._sum.amountUnits);
  });

  test('case 1, refunded: a USDT refund that found another payment\'s lending at the address references the lending\'s block: a reorganisation that leaves the lending out cannot burn the held TRX beside it', async () => {
    const { key, target } = await s.newMerchant({ aml: true });
    const inv = await s.invoice(key, { type: 'MULTIPLE', currencies: ['USDT'] });
    const heldPaid = await customerPays(inv.address, 20n * TRX, 'TRX');
    const held = await s.finalizing(async () => s.paymentState((await paymentRow(heldPaid.txId)).id, ['HELD'], 120_000));

    // A clean payment and a flagged one. The flagged one's screening is answered only once the clean one's lending is signed,
    // so the clean one lends; that lending stays out of the chain for 30 blocks, and the clean one's forward is held at its insert.
    const flagged = await customerSigns(inv.address, 60n * USDT, 'USDT');
    amlRisky.add(flagged.txId);
    amlHeld.set(flagged.txId, []);
    await s.devnet.fault.delay({ blocks: 30, from: s.gasWallet.address, to: inv.address, count: 1 });
    const cleanPaid = await customerPays(inv.address, 50n * USDT, 'USDT');
    await s.chain.broadcast(flagged.signedTx);
    const [clean, risky] = [await paymentRow(cleanPaid.txId), await paymentRow(flagged.txId)];
    const lending = await waitFor('the clean payment\'s lending signed', () => s.app.prisma.transaction.findFirst({ where: { sourceId: clean.id, sendPurpose: 'FORWARD_ENERGY' } }), 60_000);
    const gate = await holdForward(clean.id);
    try {
      assert.equal((await s.chain.getTransactionStatus(lending.trnHash)).blockNumber, null, 'the gate is in place before the lending lands');
      releaseAml(flagged.txId);
      // The refund lends nothing (the energy is there) and goes out on the clean payment's energy.
      const refund = await waitFor('the flagged payment\'s refund', () => s.app.prisma.transaction.findFirst({ where: { sourceId: risky.id, sendPurpose: 'REFUND' } }), 90_000);
      const [lendingBlock, refundBlock] = [await blockOf(lending.trnHash), await blockOf(refund.trnHash)];
      assert.equal(await s.app.prisma.transaction.count({ where: { sourceId: risky.id, sendPurpose: 'REFUND_ENERGY' } }), 0, `the refund relied on the clean payment's energy: ${await showSends(risky.id)}`);
      assert.ok(refundBlock > lendingBlock);

      const reorg = await s.devnet.reorg({ fromBlock: lendingBlock, leaveOut: [lending.trnHash] });
      assert.ok((await s.chain.getTrxBalance(inv.address)) >= held.amountUnits, `the held ${held.amountUnits} sun are still at the address after the reorganisation (${await s.chain.getTrxBalance(inv.address)}): ${JSON.stringify(reorg.dropped)}`);
      assert.ok(reorg.dropped.some((d) => d.txid === refund.trnHash && d.code === 'TAPOS_ERROR'), `the refund cannot be on a branch without the lending: ${JSON.stringify(reorg.dropped)}`);
    } finally {
      await gate.release();
    }

    // The clean payment is forwarded and the flagged one refunded, each once; the held TRX never moved.
    await s.finalizing(async () => {
      await s.paymentState(clean.id, ['SETTLED'], 180_000);
      await s.paymentState(risky.id, ['REFUNDED'], 180_000);
    });
    assert.equal((await sends(clean.id)).filter((r) => r.sendPurpose === 'FORWARD' && r.sendState === 'CONFIRMED').length, 1, await showSends(clean.id));
    const refunds = (await sends(risky.id)).filter((r) => r.sendPurpose === 'REFUND' && r.sendState === 'CONFIRMED');
    assert.deepEqual(refunds.map((r) => r.toAddress), [customer.address], await showSends(risky.id));
    // The payment, less what returning it cost where the rebuilt refund paid for its own resources (lent anew after the
    // reorganisation took the other payment's lending away); the books' last test recomputes that deduction.
    assert.ok(refunds[0]!.amountUnits <= 60n * USDT && refunds[0]!.amountUnits > 59n * USDT, `refunded ${refunds[0]!.amountUnits}: ${await showSends(risky.id)}`);
    assert.equal((await s.app.prisma.transaction.findUniqueOrThrow({ where: { id: held.id } })).paymentState, 'HELD');
    assert.ok((await s.chain.getTrxBalance(inv.address)) >= held.amountUnits, 'the held TRX is still at the address');
    const forwarded = await s.app.prisma.transaction.findUniqueOrThrow({ where: { id: clean.id } });
    assert.equal(await s.chain.getUsdtBalance(target), 50n * USDT - forwarded.feeUnits!, 'the clean payment less its fee reached the merchant');
  });

  test('case 2: a TRX forward costed on a third party\'s transfer that made the wallet an account references that transfer\'s block: a reorganisation that leaves it out cannot burn the fee kept', async () => {
    const { key, target } = await s.newMerchant({ aml: true });
    const inv = await s.invoice(key, { type: 'SINGLE', amount: 400, currencies: ['TRX'] });
    // The payment's AML check is answered only once the third party's transfer is in a later block: the forward is costed after it.
    const payment = await customerSigns(inv.address, BigInt(Math.round(inv.currencies_amounts.TRX! * 1e6)), 'TRX');
    amlHeld.set(payment.txId, []);
    await s.chain.broadcast(payment.signedTx);
    const p = await paymentRow(payment.txId);
    await waitFor('the payment being screened', async () => amlAsked.has(payment.txId), 60_000);
    const paymentBlock = await blockOf(payment.txId);
    const third = await customerPays(target, 1n * TRX, 'TRX');
    const thirdBlock = await blockOf(third.txId);
    assert.ok(thirdBlock > paymentBlock, 'the wallet became an account after the payment\'s block');
    releaseAml(payment.txId);

    const forward = await waitFor('the forward', () => s.app.prisma.transaction.findFirst({ where: { sourceId: p.id, sendPurpose: 'FORWARD' } }), 60_000);
    assert.equal(forward.createsAccount, false, 'costed without the creation: the wallet is an account at the head');
    await blockOf(forward.trnHash);
    // FORWARDING_FEE_PERCENT is 1 in the tests: 4 TRX of the 400 stay at the address.
    const feeUnits = p.amountUnits / 100n;
    const reorg = await s.devnet.reorg({ fromBlock: thirdBlock, leaveOut: [third.txId] });
    assert.ok((await s.chain.getTrxBalance(inv.address)) >= feeUnits, `the ${feeUnits} sun of fee are still at the address (${await s.chain.getTrxBalance(inv.address)}): ${JSON.stringify(reorg.dropped)}`);
    assert.ok(reorg.dropped.some((d) => d.txid === forward.trnHash && d.code === 'TAPOS_ERROR'), `the forward cannot be on a branch without the third party's transfer: ${JSON.stringify(reorg.dropped)}`);

    // Rebuilt once its death is proven, costed with the creation now: delivered once, the fee kept whole.
    await s.finalizing(() => s.waitStatus(key, inv.id, 'COMPLETED', 180_000));
    const forwards = (await sends(p.id)).filter((r) => r.sendPurpose === 'FORWARD');
    assert.deepEqual(forwards.map((r) => r.sendState), ['FAILED', 'CONFIRMED'], await showSends(p.id));
    assert.equal(forwards[1]!.createsAccount, true);
    assert.equal(await s.chain.getTrxBalance(target), forwards[1]!.amountUnits);
    assert.ok((await s.chain.getTrxBalance(inv.address)) >= feeUnits, 'the fee kept is at the address');
  });

  test('a negative gas balance (TRX burned at the address that was not gas) builds no 0-sun transfer: one ALERT, the forward goes on, reconcile names the held funds missing', async () => {
    const { key, target } = await s.newMerchant();
    const inv = await s.invoice(key, { type: 'MULTIPLE', currencies: ['USDT'] });
    const heldPaid = await customerPays(inv.address, 20n * TRX, 'TRX');
    const held = await s.finalizing(async () => s.paymentState((await paymentRow(heldPaid.txId)).id, ['HELD'], 120_000));
    // The state case 1 left on the engine before issue 35: 13.03 TRX of the held 20 burned at the address.
    const had = await s.chain.getTrxBalance(inv.address);
    const burnedSun = 13_028_500n;
    await s.devnet.setBalance(inv.address, { balanceSun: had - burnedSun });
    try {
      const logFrom = s.worker.output().length;
      const paid = await customerPays(inv.address, 30n * USDT, 'USDT');
      const p = await paymentRow(paid.txId);
      await s.finalizing(() => s.paymentState(p.id, ['SETTLED'], 120_000)).catch(async (err: Error) => {
        throw new Error(`${err.message}\n${s.worker.output().slice(logFrom).split('\n').filter((l) => l.includes(`payment ${p.id}`)).slice(0, 5).join('\n')}`);
      });
      const log = s.worker.output().slice(logFrom);
      assert.doesNotMatch(log, /Invalid amount/, 'no 0-sun transfer was built');
      assert.equal((log.match(/ALERT[^\n]*gas at [^\n]*negative/g) ?? []).length, 1, `one ALERT explains the negative gas:\n${log.split('\n').filter((l) => l.includes('ALERT')).join('\n')}`);
      assert.ok((await s.chain.getUsdtBalance(target)) > 0n, 'the forward went on');

      const books = await reconcile(s.app.prisma, s.chain, TEST_RULES);
      assert.ok(books.mismatches.some((m) => m.includes(inv.address) && m.includes('held') && m.includes(String(held.amountUnits))), `reconcile names the held TRX missing at the address: ${books.mismatches.join('\n')}`);
    } finally {
      // What was taken from the held funds is put back for the books at the end.
      await s.devnet.setBalance(inv.address, { balanceSun: (await s.chain.getTrxBalance(inv.address)) + burnedSun });
    }
  });

  test('the books reconcile, every held amount proven at its address', async () => {
    await s.finalizing(() => assertReconciled(s.app.prisma, s.chain, 120_000));
  });
});
