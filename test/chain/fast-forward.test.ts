import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TronWeb } from 'tronweb';
import { createChain } from '@/lib/chain';
import type { SignedTransfer } from '@/lib/chain/types';
import type { Transaction } from '@/lib/generated/prisma/client';
import { linkKeyWith } from '@/lib/invoices/linkKey';
import { asked, beatAfter as beatAfterIn } from '../helpers/heartbeat';
import { waitFor } from '../helpers/devnet';
import { reconcile } from '@/lib/reconcile/reconcile';
import { assertReconciled, TEST_RULES } from '../helpers/reconcile';
import { SettlementStack } from '../helpers/settlementStack';
import { startWorker } from '../helpers/worker';

// Issue 24: payments are seen in the head block and forwarded at once, each send bound (TaPoS) to the
// payment's block or a later one, while statuses and webhooks wait until the payment and its forward
// are final. On a devnet whose blocks are final DEPTH blocks deep, with its fault controls: a payment
// reorganised away after its forward went out, reorganised into a later block, a dropped forward, a
// worker killed between the forward's broadcast and the payment's finality, a lagging replica behind
// the balancer, and the setting that waits for finality. The tests assert order and outcome, never time.

// Final 150 blocks deep at 100 ms: the worker has 15 s to forward before a payment is final, enough on a busy machine.
// Once a test has seen what must happen before finality, it makes blocks final on demand (`s.finalizing`,
// POST /devnet/solidify) instead of waiting those blocks.
const DEPTH = 150;
const TRX = 1_000_000n;
const WORKER_ENV = { ENERGY_POOL_AUTOSTAKE: '300000:30000', SEND_RETRY_BASE_MS: '300', HEAD_SCAN_POLL_MS: '50', TRON_TX_EXPIRATION_MS: '10000' };

describe('forwarding before finality (issue 24)', () => {
  const s = new SettlementStack();
  const customer = TronWeb.createRandom() as unknown as { address: string; privateKey: string };
  before(async () => {
    await s.start(WORKER_ENV, async () => {
      await s.pay(s.gasWallet.address, '400000', 'TRX');
      await s.pay(customer.address, '10000', 'TRX');
      await s.pay(customer.address, '10000', 'USDT');
    }, { blockMs: 100, solidifiedDepth: DEPTH });
    await s.finalizing(() => s.poolStaked(240_000));
  });
  after(() => s.stop());

  /** The customer's wallet pays: signed here, so a test can broadcast the same bytes again. Short-lived when `expiresSoon`. */
  async function customerPays(address: string, amount: bigint, token: 'TRX' | 'USDT', expiresSoon = false): Promise<SignedTransfer> {
    const chain = expiresSoon ? createChain({ fullNodeUrl: s.devnet.url, apiKey: null, usdtContract: s.devnet.usdtContract, txExpirationMs: 10_000 }) : s.chain;
    const signed = token === 'TRX' ? await chain.buildSignedTrxTransfer(customer.privateKey, address, amount) : await chain.buildSignedUsdtTransfer(customer.privateKey, address, amount, 100n * TRX);
    await chain.broadcast(signed.signedTx);
    return signed;
  }

  const blockOf = async (txId: string) => waitFor(`${txId} in a block`, async () => (await s.chain.getTransactionStatus(txId)).blockNumber, 60_000);
  const blockAt = async (n: number) => (await (await fetch(`${s.devnet.url}/wallet/getblock`, { method: 'POST', body: JSON.stringify({ id_or_num: String(n), detail: false }) })).json()) as { blockID: string; block_header: { raw_data: { timestamp: number } } };
  const refOf = (row: Transaction) => (row.signedTx as { raw_data: { ref_block_bytes: string; ref_block_hash: string } }).raw_data;
  /** Whether a stored send references block `n` (its id as the chain holds it now). */
  const referencesBlock = async (row: Transaction, n: number) => {
    const ref = refOf(row);
    return ref.ref_block_bytes === n.toString(16).slice(-4).padStart(4, '0') && ref.ref_block_hash === (await blockAt(n)).blockID.slice(16, 32);
  };
  /** The height of the block a stored send references, checked to be the block the chain holds there. */
  const referencedHeight = async (row: Transaction, near: number) => {
    const ref = refOf(row);
    const n = near - ((near - parseInt(ref.ref_block_bytes, 16)) & 0xffff);
    assert.equal((await blockAt(n)).blockID.slice(16, 32), ref.ref_block_hash, `the block at ${n} is the one referenced`);
    return n;
  };
  const paymentRow = (txId: string) => waitFor(`payment ${txId} recorded`, () => s.app.prisma.transaction.findFirst({ where: { trnHash: txId, type: 'PAYMENT' } }), 60_000);
  const send = (paymentId: number, purpose: 'FORWARD' | 'FORWARD_GAS' | 'FORWARD_ENERGY' | 'FORWARD_BANDWIDTH', states = ['BROADCAST', 'CONFIRMED']) =>
    waitFor(`${purpose} of payment ${paymentId}`, () => s.app.prisma.transaction.findFirst({ where: { sourceId: paymentId, sendPurpose: purpose, sendState: { in: states as never } }, orderBy: { id: 'desc' } }), 60_000);
  const hooksFor = (invoiceId: number) => s.hooks.filter((h) => h.id === invoiceId);
  /**
   * `npm run reconcile` while `sends` are in blocks that are not final (issue 35): balanced, since the
   * books are judged against the final state and what is final and not booked yet; the sends were
   * still not final when it ended, so nothing of theirs was booked while it ran.
   */
  async function reconcilesWhileOut(sends: Transaction[]) {
    for (const r of sends) await blockOf(r.trnHash);
    const r = await reconcile(s.app.prisma, s.chain, TEST_RULES);
    for (const x of sends) assert.equal((await s.chain.getTransactionStatus(x.trnHash)).solidified, false, `send ${x.id} (${x.sendPurpose}) still not final when reconcile ended`);
    assert.deepEqual(r.mismatches, [], `reconcile while sends are out:\n${r.mismatches.join('\n')}`);
    return r;
  }
  /** When the block that made block `n` final was made (ms): nothing about `n` may be reported before it. */
  const finalAt = (n: number) => s.finalAt(n, DEPTH);
  const beatAfter = (t: Date) => beatAfterIn(s.app.prisma, t);

  test('a TRX payment: seen on its page and forwarded while its block is not final, bound to it; reported only once both are final', async () => {
    const { key, target } = await s.newMerchant();
    const inv = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
    const paid = await customerPays(inv.address, BigInt(Math.round(inv.currencies_amounts.TRX! * 1e6)), 'TRX');
    const p = await paymentRow(paid.txId);
    const forward = await send(p.id, 'FORWARD');
    const paymentBlock = await blockOf(paid.txId);
    const forwardBlock = await blockOf(forward.trnHash);
    // Only a send built for a payment not yet final references the payment's block (once final, the head): built before finality.
    assert.ok(await referencesBlock(forward, paymentBlock), 'the forward references the payment\'s block');

    // While not final: the page says it is seen and confirming; the API does not list it as received.
    const status = (await (await fetch(`${s.app.baseUrl}/payment/${inv.id}/status?k=${linkKeyWith(s.app.env.MASTER_KEY!, inv.id)}`)).json()) as { confirming: boolean; status: string };
    const listed = (await s.app.api(`/transaction/list?invoice_id=${inv.id}`, key)).json as { results: unknown[] };
    const stillUnfinal = !(await s.app.prisma.transaction.findUniqueOrThrow({ where: { id: p.id } })).solidified;
    if (stillUnfinal) {
      assert.equal(status.confirming, true, 'the page shows the payment seen, confirming');
      assert.equal(status.status, 'ACTIVE');
      assert.equal(listed.results.length, 0, 'no transaction listed before the payment is final');
    }

    await s.finalizing(() => s.waitStatus(key, inv.id, 'COMPLETED', 120_000));
    const delivery = await waitFor('the COMPLETED webhook queued', () => s.app.prisma.webhookDelivery.findFirst({ where: { invoiceId: inv.id } }), 30_000);
    assert.ok(delivery.createdAt.getTime() >= (await finalAt(forwardBlock)), 'COMPLETED was reported after the forward\'s block was final (and so the payment\'s)');
    await waitFor('the webhook delivered', async () => hooksFor(inv.id).length > 0, 30_000);
    assert.deepEqual(hooksFor(inv.id).map((h) => h.status), ['COMPLETED']);
    const forwards = await s.app.prisma.transaction.findMany({ where: { sourceId: p.id, sendPurpose: 'FORWARD' } });
    assert.equal(forwards.length, 1);
    assert.equal(await s.chain.getTrxBalance(target), forwards[0]!.amountUnits);
  });

  test('a USDT payment with the pool: activation, lending and forward each bound to the block of the one before, built before the payment is final', async () => {
    const { key, target } = await s.newMerchant();
    const inv = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['USDT'] });
    const paid = await customerPays(inv.address, BigInt(Math.round(inv.currencies_amounts.USDT! * 1e6)), 'USDT');
    const p = await paymentRow(paid.txId);
    const forward = await send(p.id, 'FORWARD');
    const [gas, lending] = [await send(p.id, 'FORWARD_GAS'), await send(p.id, 'FORWARD_ENERGY')];
    const blocks = { payment: await blockOf(paid.txId), gas: await blockOf(gas.trnHash), lending: await blockOf(lending.trnHash), forward: await blockOf(forward.trnHash) };
    assert.ok(await referencesBlock(gas, blocks.payment), 'the activation references the payment\'s block');
    assert.ok(await referencesBlock(lending, blocks.gas), 'the lending references the activation\'s block');
    assert.ok(await referencesBlock(forward, blocks.lending), `the forward references the lending's block: ${JSON.stringify(blocks)}`);
    assert.equal(forward.energySource, 'POOL');
    // Mid-flight, the head holds the payment, its activation, lending and forward; none is final.
    const midFlight = await reconcilesWhileOut([gas, lending, forward]);
    assert.ok(midFlight.paymentsInProgress >= 1, 'the payment counted in progress');

    await s.finalizing(() => s.waitStatus(key, inv.id, 'COMPLETED', 120_000));
    const delivery = await waitFor('the COMPLETED webhook queued', () => s.app.prisma.webhookDelivery.findFirst({ where: { invoiceId: inv.id } }), 30_000);
    assert.ok(delivery.createdAt.getTime() >= (await finalAt(blocks.forward)), 'reported once the forward was final');
    // Each step booked when final, though the next went out before.
    const sends = await s.app.prisma.transaction.findMany({ where: { sourceId: p.id, sendPurpose: { in: ['FORWARD', 'FORWARD_GAS', 'FORWARD_ENERGY'] } } });
    assert.deepEqual(sends.map((r) => r.sendState), sends.map(() => 'CONFIRMED'));
    assert.ok((await s.chain.getUsdtBalance(target)) > 0n);
  });

  test('a USDT payment whose forward needs the pool\'s energy and bandwidth: the bandwidth is lent while the energy\'s lending is in a block not final, bound to it', async () => {
    // The invoice paid in two parts: the first part's forward uses the address's free bandwidth (600 bytes a day, a USDT
    // transfer about 345), so the second's needs the pool's bandwidth beside its energy. Until 2026-12-06 one lending at
    // a time could be in flight to an address (migration 0059), so the bandwidth waited for the energy's lending to be
    // final: on the default run (3 s blocks, final 19 deep) a second part was COMPLETED about 190 s after it was paid.
    const { key, target } = await s.newMerchant();
    const inv = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['USDT'] });
    const total = BigInt(Math.round(inv.currencies_amounts.USDT! * 1e6));
    // Parts of different amounts: the same amount to the same address on the same head would be the same transaction.
    const firstPart = total / 2n + 1n;
    const first = await paymentRow((await customerPays(inv.address, firstPart, 'USDT')).txId);
    await s.finalizing(() => send(first.id, 'FORWARD', ['CONFIRMED']));
    // Paid once the first part's forward is final; nothing is made final on demand until the second's sends are out.
    const paid = await customerPays(inv.address, total - firstPart, 'USDT');
    const p = await paymentRow(paid.txId);
    const forward = await send(p.id, 'FORWARD');
    const [energy, bandwidth] = [await send(p.id, 'FORWARD_ENERGY'), await send(p.id, 'FORWARD_BANDWIDTH')];
    const blocks = { energy: await blockOf(energy.trnHash), bandwidth: await blockOf(bandwidth.trnHash), forward: await blockOf(forward.trnHash) };
    assert.ok(await referencesBlock(bandwidth, blocks.energy), `the bandwidth's lending references the energy's, built before that was final: ${JSON.stringify(blocks)}`);
    assert.ok(await referencesBlock(forward, blocks.bandwidth), `the forward references the bandwidth's lending: ${JSON.stringify(blocks)}`);
    await s.finalizing(() => s.waitStatus(key, inv.id, 'COMPLETED', 120_000));
    const sends = await s.app.prisma.transaction.findMany({ where: { sourceId: { in: [first.id, p.id] }, sendPurpose: { in: ['FORWARD', 'FORWARD_ENERGY', 'FORWARD_BANDWIDTH'] } } });
    assert.deepEqual(sends.map((r) => r.sendState), sends.map(() => 'CONFIRMED'), 'each booked when final');
    const forwarded = sends.filter((r) => r.sendPurpose === 'FORWARD').reduce((sum, r) => sum + r.amountUnits, 0n);
    assert.equal(await s.chain.getUsdtBalance(target), forwarded, 'both parts forwarded');
  });

  test('a USDT payment\'s sends, in blocks not final, are not looked at again until their blocks can be final; each is then read once and booked (issue 37)', async () => {
    const { key } = await s.newMerchant();
    const inv = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['USDT'] });
    const paid = await customerPays(inv.address, BigInt(Math.round(inv.currencies_amounts.USDT! * 1e6)), 'USDT');
    const p = await paymentRow(paid.txId);
    await send(p.id, 'FORWARD');
    const sends = await s.app.prisma.transaction.findMany({ where: { sourceId: p.id, sendPurpose: { in: ['FORWARD', 'FORWARD_GAS', 'FORWARD_ENERGY'] } } });
    assert.equal(sends.length, 3, 'activation, lending and forward out');
    for (const r of sends) await blockOf(r.trnHash);
    // Two heartbeats apart while the three are in blocks that are not final (150 blocks deep: 15 s).
    const first = await beatAfter(new Date());
    const later = await beatAfter(first.at);
    const stillOut = !(await s.app.prisma.transaction.findUniqueOrThrow({ where: { id: p.id } })).solidified;
    const { delta, seen } = asked(first, later);
    // Looked at every worker round (50 ms), each look two requests, they were read about 200 times in those 5 s.
    // Now: none while their blocks cannot be final (and at most one each, had one of them become final meanwhile).
    assert.ok(delta('wallet/gettransactioninfobyid') <= (stillOut ? 1 : 3), `receipts read while the sends wait for finality: ${seen}`);
    assert.ok(delta('walletsolidity/getblock') <= 1, `the solidified head is taken from the scanner, not asked for each look: ${seen}`);
    const before = later;
    await s.finalizing(() => s.waitStatus(key, inv.id, 'COMPLETED', 120_000));
    const done = await s.app.prisma.transaction.findMany({ where: { sourceId: p.id, sendPurpose: { in: ['FORWARD', 'FORWARD_GAS', 'FORWARD_ENERGY'] } } });
    assert.deepEqual(done.map((r) => r.sendState), done.map(() => 'CONFIRMED'), 'each booked when final');
    assert.ok(done.every((r) => r.feeSun !== null), 'each with its receipt\'s fee');
    const after = await beatAfter(new Date());
    const receipts = (after.counts['wallet/gettransactioninfobyid'] ?? 0) - (before.counts['wallet/gettransactioninfobyid'] ?? 0);
    // Once each when final, once more for a send final before its payment was booked, and the taking back of the lending.
    assert.ok(receipts <= 10, `receipts read from finality to COMPLETED: ${receipts}`);
  });

  test('while a USDT payment\'s activation is in no block, its forward is not planned again each round: no checks, no estimate, until it lands (issue 37)', async () => {
    const { key } = await s.newMerchant();
    const inv = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['USDT'] });
    // Every broadcast of the gas wallet's to the address is dropped: the activation is out and in no block, broadcast
    // again at each look, rebuilt each time it is proven dead (10 s).
    await s.devnet.fault.drop({ from: s.gasWallet.address, to: inv.address });
    try {
      const paid = await customerPays(inv.address, BigInt(Math.round(inv.currencies_amounts.USDT! * 1e6)), 'USDT');
      const p = await paymentRow(paid.txId);
      await send(p.id, 'FORWARD_GAS', ['BROADCAST']);
      const first = await beatAfter(new Date());
      const later = await beatAfter(first.at);
      const { delta, seen } = asked(first, later);
      // Planned every worker round (50 ms) before: whether the target is a contract, the blacklist for both addresses
      // and the estimate, 68 and 136 requests in those 5 s here. Now none while it is out; in the rounds after it is
      // proven dead, until it is rebuilt (SEND_RETRY_BASE_MS, 300 ms), the forward is planned again: a few.
      assert.ok(delta('wallet/getcontract') <= 10, `the target checked while the activation is in no block: ${seen}`);
      assert.ok(delta('wallet/triggerconstantcontract') <= 20, `the blacklist and the estimate asked while the activation is in no block: ${seen}`);
      assert.equal((await s.app.prisma.transaction.count({ where: { sourceId: p.id, sendPurpose: 'FORWARD' } })), 0, 'no forward built');
    } finally {
      await s.devnet.fault.clear();
    }
    // Once it lands, the forward goes out: COMPLETED.
    await s.finalizing(() => s.waitStatus(key, inv.id, 'COMPLETED', 120_000));
  });

  test('a payment reorganised away after its forward went out: the forward never executes, nothing is sent from the held funds beside it, no webhook, the payment is dropped', async () => {
    const { merchant, key, target } = await s.newMerchant();
    const inv = await s.invoice(key, { type: 'MULTIPLE', currencies: ['TRX'] });
    // First, funds that must stay where they are: 40 TRX held at the address (no target wallet then).
    await s.app.prisma.merchant.update({ where: { id: merchant.id }, data: { targetWalletAddress: null } });
    const heldPaid = await customerPays(inv.address, 40n * TRX, 'TRX');
    const held = await s.finalizing(async () => s.paymentState((await paymentRow(heldPaid.txId)).id, ['HELD'], 120_000));
    await s.app.prisma.merchant.update({ where: { id: merchant.id }, data: { targetWalletAddress: target } });
    const deliveries = () => s.app.prisma.webhookDelivery.count({ where: { invoiceId: inv.id } });
    const deliveriesBefore = await deliveries();

    const paid = await customerPays(inv.address, 30n * TRX, 'TRX', true);
    const p = await paymentRow(paid.txId);
    const forward = await send(p.id, 'FORWARD');
    const paymentBlock = await blockOf(paid.txId);
    await blockOf(forward.trnHash);
    const reorg = await s.devnet.reorg({ fromBlock: paymentBlock, leaveOut: [paid.txId] });
    assert.ok(reorg.dropped.some((d) => d.txid === forward.trnHash && d.code === 'TAPOS_ERROR'), `the forward cannot be on the new branch: ${JSON.stringify(reorg.dropped)}`);

    const dropped = await s.finalizing(() => s.paymentState(p.id, ['DROPPED'], 120_000));
    assert.equal(dropped.blockNumber, null);
    const sends = await s.app.prisma.transaction.findMany({ where: { sourceId: p.id } });
    assert.ok(sends.length > 0 && sends.every((r) => r.sendState === 'FAILED' && r.blockNumber === null), `every send for it proven dead, none in a block: ${JSON.stringify(sends.map((r) => [r.sendPurpose, r.sendState, r.blockNumber]))}`);
    assert.equal(await s.chain.getTrxBalance(target), 0n, 'nothing reached the merchant');
    assert.ok((await s.chain.getTrxBalance(inv.address)) >= held.amountUnits, 'the held funds are still at the address');
    assert.equal((await s.app.prisma.transaction.findUniqueOrThrow({ where: { id: held.id } })).paymentState, 'HELD');
    assert.equal(await deliveries(), deliveriesBefore, 'no webhook for a payment that never arrived');
    assert.equal(await s.app.prisma.ledgerEntry.count({ where: { paymentId: p.id } }), 0, 'nothing of it in the ledger');
    assert.equal((await s.app.api(`/transaction/${paid.txId}`, key)).status, 404, 'not shown by the API');
  });

  test('a payment reorganised into a later block: the first forward dies, one forward lands, one COMPLETED', async () => {
    const { key, target } = await s.newMerchant();
    const inv = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
    const paid = await customerPays(inv.address, BigInt(Math.round(inv.currencies_amounts.TRX! * 1e6)), 'TRX');
    const p = await paymentRow(paid.txId);
    const first = await send(p.id, 'FORWARD');
    const paymentBlock = await blockOf(paid.txId);
    await blockOf(first.trnHash);
    await s.devnet.reorg({ fromBlock: paymentBlock, leaveOut: [paid.txId] });
    await waitFor('the payment unseen', async () => (await s.app.prisma.transaction.findUniqueOrThrow({ where: { id: p.id } })).blockNumber === null, 30_000);
    // The customer's wallet sends the same transaction again: it enters a later block.
    await s.chain.broadcast(paid.signedTx);
    const later = await waitFor('the payment in a later block', async () => {
      const n = (await s.chain.getTransactionStatus(paid.txId)).blockNumber;
      return n !== null && n > paymentBlock ? n : null;
    }, 30_000);

    await s.finalizing(() => s.waitStatus(key, inv.id, 'COMPLETED', 120_000));
    const forwards = await s.app.prisma.transaction.findMany({ where: { sourceId: p.id, sendPurpose: 'FORWARD' }, orderBy: { id: 'asc' } });
    assert.equal(forwards[0]!.sendState, 'FAILED', 'the first forward, bound to the replaced block, is proven dead');
    assert.equal(forwards[0]!.blockNumber, null);
    const landed = forwards.filter((f) => f.sendState === 'CONFIRMED');
    assert.equal(landed.length, 1, 'one forward landed');
    // The block the payment is in now, or a later one (once that block is final, a new send references the head).
    assert.ok((await referencedHeight(landed[0]!, landed[0]!.blockNumber!)) >= later, 'the forward that landed references the block the payment is in now or a later one');
    assert.equal(await s.chain.getTrxBalance(target), landed[0]!.amountUnits);
    await waitFor('the webhook delivered', async () => hooksFor(inv.id).length > 0, 30_000);
    assert.deepEqual(hooksFor(inv.id).map((h) => h.status), ['COMPLETED']);
  });

  test('a dropped forward is sent again or rebuilt: one forward lands, one COMPLETED', async () => {
    const { key, target } = await s.newMerchant();
    const inv = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
    await s.devnet.fault.drop({ from: inv.address, count: 1 });
    try {
      const paid = await customerPays(inv.address, BigInt(Math.round(inv.currencies_amounts.TRX! * 1e6)), 'TRX');
      await s.finalizing(() => s.waitStatus(key, inv.id, 'COMPLETED', 120_000));
      const p = await paymentRow(paid.txId);
      const forwards = await s.app.prisma.transaction.findMany({ where: { sourceId: p.id, sendPurpose: 'FORWARD', sendState: 'CONFIRMED' } });
      assert.equal(forwards.length, 1);
      assert.equal(await s.chain.getTrxBalance(target), forwards[0]!.amountUnits);
      assert.equal((await s.devnet.fault.list()).faults.find((f) => f.from === inv.address)?.hits.length, 1, 'the first broadcast of the forward was dropped');
    } finally {
      await s.devnet.fault.clear();
    }
    await waitFor('the webhook delivered', async () => hooksFor(inv.id).length > 0, 30_000);
    assert.deepEqual(hooksFor(inv.id).map((h) => h.status), ['COMPLETED']);
  });

  test('kill -9 between the forward\'s broadcast and the payment\'s finality: followed after restart, forwarded and reported once', async () => {
    const { key, target } = await s.newMerchant();
    const inv = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
    const paid = await customerPays(inv.address, BigInt(Math.round(inv.currencies_amounts.TRX! * 1e6)), 'TRX');
    const p = await paymentRow(paid.txId);
    await send(p.id, 'FORWARD', ['BROADCAST']);
    assert.equal((await s.app.prisma.transaction.findUniqueOrThrow({ where: { id: p.id } })).solidified, false, 'killed before the payment was final');
    await s.worker.kill();
    s.worker = startWorker(s.app.env, s.devnet, { AML_FLAGGED_ADDRESSES: s.flagged.address, ...WORKER_ENV });
    await s.finalizing(() => s.waitStatus(key, inv.id, 'COMPLETED', 120_000));
    const forwards = await s.app.prisma.transaction.findMany({ where: { sourceId: p.id, sendPurpose: 'FORWARD' } });
    assert.equal(forwards.length, 1, 'the forward was followed, not built again');
    assert.equal(await s.chain.getTrxBalance(target), forwards[0]!.amountUnits);
    await waitFor('the webhook delivered', async () => hooksFor(inv.id).length > 0, 30_000);
    assert.deepEqual(hooksFor(inv.id).map((h) => h.status), ['COMPLETED']);
  });

  test('behind a balancer with a lagging replica: TRX and USDT payments forwarded once and reported once', async () => {
    await s.worker.stop();
    s.worker = startWorker(s.app.env, s.devnet, { AML_FLAGGED_ADDRESSES: s.flagged.address, ...WORKER_ENV, TRON_FULL_NODE_URL: s.devnet.balancerUrl });
    await s.devnet.fault.lag(5);
    try {
      const { key } = await s.newMerchant();
      const invoices = [await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'] }), await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['USDT'] })];
      for (const [i, inv] of invoices.entries()) {
        const token = i === 0 ? 'TRX' : 'USDT';
        await customerPays(inv.address, BigInt(Math.round(inv.currencies_amounts[token]! * 1e6)), token);
      }
      for (const inv of invoices) {
        await s.finalizing(() => s.waitStatus(key, inv.id, 'COMPLETED', 180_000));
        const forwards = await s.app.prisma.transaction.findMany({ where: { invoiceId: inv.id, sendPurpose: 'FORWARD', sendState: 'CONFIRMED' } });
        assert.equal(forwards.length, 1, await s.dump(inv.id));
        await waitFor('the webhook delivered', async () => hooksFor(inv.id).length > 0, 30_000);
        assert.deepEqual(hooksFor(inv.id).map((h) => h.status), ['COMPLETED']);
      }
    } finally {
      await s.devnet.fault.clear();
      await s.worker.stop();
      s.worker = startWorker(s.app.env, s.devnet, { AML_FLAGGED_ADDRESSES: s.flagged.address, ...WORKER_ENV });
    }
  });

  test('FORWARD_BEFORE_FINALITY=false waits for the payment\'s finality before forwarding', async () => {
    await s.worker.stop();
    s.worker = startWorker(s.app.env, s.devnet, { AML_FLAGGED_ADDRESSES: s.flagged.address, ...WORKER_ENV, FORWARD_BEFORE_FINALITY: 'false' });
    try {
      const { key } = await s.newMerchant();
      const inv = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
      const paid = await customerPays(inv.address, BigInt(Math.round(inv.currencies_amounts.TRX! * 1e6)), 'TRX');
      const paymentBlock = await blockOf(paid.txId);
      // Twenty blocks on, not final: nothing forwarded yet. Without the head scanner the payment is
      // recorded only once final, so this looks before that: looked at once the payment's row had
      // appeared, it raced the forward stored right after it (it failed so on a busy machine).
      await waitFor('twenty blocks on', async () => (await s.chain.getBlockNumber()) >= paymentBlock + 20, 60_000);
      assert.ok((await s.chain.getConfirmedHead()).number < paymentBlock, 'the payment is not final yet');
      assert.equal(await s.app.prisma.transaction.count({ where: { invoiceId: inv.id, sendPurpose: 'FORWARD' } }), 0, 'no forward before the payment is final');
      await s.finalizing(() => s.waitStatus(key, inv.id, 'COMPLETED', 120_000));
      const p = await paymentRow(paid.txId);
      const forward = await s.app.prisma.transaction.findFirstOrThrow({ where: { sourceId: p.id, sendPurpose: 'FORWARD', sendState: 'CONFIRMED' } });
      const finalBlock = s.finalBlock(paymentBlock, DEPTH);
      assert.ok(forward.blockNumber! > finalBlock, `forwarded (block ${forward.blockNumber}) only once the payment (block ${paymentBlock}) was final (block ${finalBlock})`);
    } finally {
      await s.worker.stop();
      s.worker = startWorker(s.app.env, s.devnet, { AML_FLAGGED_ADDRESSES: s.flagged.address, ...WORKER_ENV });
    }
  });

  test('a USDT payout with the pool: its target sends go out once the wave\'s lending is in a head block, each referencing it; COMPLETED once all are final', async () => {
    const { key } = await s.newMerchant();
    const targets = Array.from({ length: 3 }, (_, i) => ({ address: (TronWeb.createRandom() as unknown as { address: string }).address, amount: 1 + i }));
    const res = await s.app.api('/payment/multiple_transfer/create', key, { method: 'POST', body: { currency: 'USDT', target_wallets: targets } });
    assert.equal(res.status, 200, res.text);
    const payout = res.json as { id: number; address: string; currencies_amounts: { USDT: number } };
    const topupPaid = await customerPays(payout.address, BigInt(Math.round(payout.currencies_amounts.USDT * 1e6)), 'USDT');
    // A payout starts once its top-up is final: made final as soon as it is in a block.
    await blockOf(topupPaid.txId);
    await s.devnet.solidify();
    const topup = await waitFor('the top-up recorded', () => s.app.prisma.transaction.findFirst({ where: { invoiceId: payout.id, type: 'TOPUP' } }), 120_000);
    // The pool lends the wave's bandwidth once its energy lending is final: made final as soon as it is in a block.
    await waitFor('the wave\'s energy lending in a block', () => s.app.prisma.transaction.findFirst({ where: { sourceId: topup.id, sendPurpose: 'PAYOUT_ENERGY', blockNumber: { not: null } } }), 120_000);
    await s.devnet.solidify();
    const targetSends = await waitFor('every target send out', async () => {
      const rows = await s.app.prisma.transaction.findMany({ where: { sourceId: topup.id, sendPurpose: 'PAYOUT_TARGET', sendState: { in: ['BROADCAST', 'CONFIRMED'] } } });
      return rows.length === targets.length ? rows : null;
    }, 120_000);
    // The wave's activation, its lending of energy and (beyond the free bytes) of bandwidth: the sends reference the newest.
    const wave = await s.app.prisma.transaction.findMany({ where: { sourceId: topup.id, sendPurpose: { in: ['PAYOUT_GAS', 'PAYOUT_ENERGY', 'PAYOUT_BANDWIDTH'] } } });
    assert.ok(wave.some((r) => r.sendPurpose === 'PAYOUT_ENERGY'), 'the wave\'s energy lent');
    const lendingBlock = Math.max(...(await Promise.all(wave.map((r) => blockOf(r.trnHash)))));
    // Built on the lending while it was not final: each references its block (once final, a send references the head).
    for (const t of targetSends) assert.ok(await referencesBlock(t, lendingBlock), `target ${t.sendIndex} references the lending's block ${lendingBlock}`);
    assert.ok(targetSends.every((t) => t.energySource === 'POOL'));
    // The targets' sends in head blocks, not final: the payout counted in progress, the books balanced (issue 35).
    const midFlight = await reconcilesWhileOut(targetSends);
    assert.equal(midFlight.payoutsInProgress, 1, 'the payout counted in progress');

    await s.finalizing(() => s.waitStatus(key, payout.id, 'COMPLETED', 120_000));
    const lastTargetBlock = Math.max(...(await Promise.all(targetSends.map((t) => blockOf(t.trnHash)))));
    const delivery = await waitFor('the COMPLETED webhook queued', () => s.app.prisma.webhookDelivery.findFirst({ where: { invoiceId: payout.id } }), 30_000);
    assert.ok(delivery.createdAt.getTime() >= (await finalAt(lastTargetBlock)), 'reported once every target send was final');
    // The lending, out before the sends, booked when final before the payout ended.
    const prerequisites = await s.app.prisma.transaction.findMany({ where: { sourceId: topup.id, sendPurpose: { in: ['PAYOUT_GAS', 'PAYOUT_ENERGY', 'PAYOUT_BANDWIDTH'] } } });
    assert.deepEqual(prerequisites.map((r) => r.sendState), prerequisites.map(() => 'CONFIRMED'));
    for (const t of targets) assert.equal(await s.chain.getUsdtBalance(t.address), BigInt(t.amount) * 1_000_000n);
  });

  test('balances the books: every payment closed or dropped, every service address matches the chain', async () => {
    await s.finalizing(() => assertReconciled(s.app.prisma, s.chain, 180_000));
  });
});
