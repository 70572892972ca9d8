import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TronWeb } from 'tronweb';
import type { Transaction } from '@/lib/generated/prisma/client';
import { waitFor } from '../helpers/devnet';
import type { Chain } from '@/lib/chain/types';
import { reconcile } from '@/lib/reconcile/reconcile';
import { assertReconciled, TEST_RULES } from '../helpers/reconcile';
import { SettlementStack } from '../helpers/settlementStack';
import { startWorker } from '../helpers/worker';

// The energy pool through crashes and races (issue 23, docs/energy.md "Taking energy back"), on the
// devnet with the real app and worker: a worker killed (kill -9) between the lending and the
// forward's broadcast, and between the forward and the taking back; stake delegated with no row of
// ours to explain it, or delegated after the lending before it was taken back; the taking back
// racing a forward that relies on energy lent earlier; the network's TotalEnergyWeight rising
// between the lending and the send. The pool lends 200 % beyond each estimate here, so a static
// address keeps enough lent energy for a second forward.

const TRX = 1_000_000n;
const newAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;

describe('the energy pool through crashes and races', () => {
  const s = new SettlementStack();
  // Stake delegated by hand from the gas wallet (below) is nothing of ours: the energy upkeep sees it when it reads the pool
  // again, at the latest every ENERGY_REFRESH_MS (10 min by default; lib/energy/upkeep.ts), here every 2 s.
  const env = { ENERGY_POOL_AUTOSTAKE: '300000:30000', ENERGY_MARGIN_PERCENT: '200', ENERGY_REFRESH_MS: '2000' };
  const restart = () => {
    s.worker = startWorker(s.app.env, s.devnet, { AML_FLAGGED_ADDRESSES: s.flagged.address, ...env });
  };
  before(async () => {
    await s.start(env, () => s.pay(s.gasWallet.address, '400000', 'TRX').then(() => undefined));
    await s.poolStaked();
  });
  after(() => s.stop());

  /** Successful USDT transfers out of `address` on chain since `fromBlock`. */
  async function usdtOut(address: string, fromBlock: number): Promise<number> {
    let out = 0;
    const head = await s.chain.getBlockNumber();
    for (let from = fromBlock; from <= head; from += 100) {
      const { transfers } = await s.chain.getBlockRangeTransfers(from, Math.min(from + 99, head));
      out += transfers.filter((t) => t.from === address && t.token === 'USDT' && t.success).length;
    }
    return out;
  }
  const takenBack = (address: string, timeoutMs = 180_000) =>
    waitFor(`the energy lent to ${address} taken back`, async () => ((await s.chain.getDelegatedSun(s.gasWallet.address, address)).ENERGY === 0n && (await s.app.prisma.transaction.count({ where: { type: 'UNDELEGATE', toAddress: address, sendState: { in: ['SIGNED', 'BROADCAST'] } } })) === 0 ? true : null), timeoutMs);

  test('kill -9 between the lending and the forward\'s broadcast: the restarted worker lends nothing more, forwards once, and the energy comes back', async () => {
    const { key } = await s.newMerchant();
    const invoice = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['USDT'] });
    const gate = await s.holdSlot('FORWARD', invoice.address);
    let payment: Transaction;
    try {
      await s.pay(invoice.address, String(invoice.currencies_amounts.USDT), 'USDT');
      payment = await s.paymentOf(invoice.id, 10_000_000n, 180_000);
      const pids = await s.insertWaiting(gate);
      // In a block, final or not (the fast path signs the forward once the lending is in a head block).
      assert.ok(await s.app.prisma.transaction.findFirst({ where: { sourceId: payment.id, type: 'DELEGATE', sendState: { in: ['BROADCAST', 'CONFIRMED'] }, blockNumber: { not: null } } }), 'the energy was lent');
      // The worker dies with the forward signed and not stored; its connection with it.
      await s.worker.kill();
      await gate.terminate(pids);
    } finally {
      await gate.release();
    }
    restart();
    await s.waitStatus(key, invoice.id, 'COMPLETED', 180_000);
    const forwards = await s.app.prisma.transaction.findMany({ where: { sourceId: payment.id, sendPurpose: 'FORWARD' } });
    assert.deepEqual(forwards.map((f) => [f.sendState, f.energySource, f.feeSun]), [['CONFIRMED', 'POOL', 0n]], 'one forward, sent once, on lent energy');
    const lendings = await s.app.prisma.transaction.findMany({ where: { sourceId: payment.id, type: 'DELEGATE', resource: 'ENERGY' }, orderBy: { id: 'asc' } });
    assert.equal(lendings.length, 1, `the energy lent before the crash was used: nothing lent twice; lent ${JSON.stringify(lendings.map((l) => ({ id: l.id, step: [l.sendPurpose, l.sendIndex], state: l.sendState, energy: String(l.energyUnits), stake: String(l.stakeSun), block: l.blockNumber, created: l.createdAt })))}\n${s.worker.output().slice(-4000)}`);
    await takenBack(invoice.address);
    assert.equal(await usdtOut(invoice.address, payment.blockNumber!), 1);
  });

  test('kill -9 after the forward and before the taking back is stored: the restarted worker takes the energy back, once', async () => {
    const { key } = await s.newMerchant();
    const invoice = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['USDT'] });
    // The forward is held 10 blocks on its way, so that its lending is final (no longer holding the one slot of an
    // energy operation in flight to the address) well before the payment can close and the taking back begin.
    await s.devnet.fault.delay({ from: invoice.address, count: 1, blocks: 10 });
    await s.pay(invoice.address, String(invoice.currencies_amounts.USDT), 'USDT');
    const payment = await s.paymentOf(invoice.id, 10_000_000n, 180_000);
    // Held once the forward is out and its lending final: the taking back, which waits for the payment to close, stops at its insert.
    await waitFor('the forward out', () => s.app.prisma.transaction.findFirst({ where: { sourceId: payment.id, sendPurpose: 'FORWARD', sendState: { in: ['BROADCAST', 'CONFIRMED'] } } }), 180_000);
    await waitFor('the lending final', async () => ((await s.app.prisma.transaction.count({ where: { sourceId: payment.id, type: 'DELEGATE', sendState: { not: 'CONFIRMED' } } })) === 0 ? true : null), 180_000);
    const gate = await s.holdSlot('ENERGY_RECLAIM', invoice.address);
    try {
      await s.waitStatus(key, invoice.id, 'COMPLETED', 180_000);
      const pids = await s.insertWaiting(gate);
      assert.ok((await s.chain.getDelegatedSun(s.gasWallet.address, invoice.address)).ENERGY > 0n, 'still lent when the worker dies');
      await s.worker.kill();
      await gate.terminate(pids);
    } finally {
      await gate.release();
    }
    restart();
    await takenBack(invoice.address);
    const back = await s.app.prisma.transaction.findMany({ where: { type: 'UNDELEGATE', toAddress: invoice.address } });
    assert.deepEqual(back.map((u) => [u.sourceId, u.resource, u.sendState]), [[payment.id, 'ENERGY', 'CONFIRMED']], 'taken back once');
    assert.equal((await s.app.prisma.transaction.findMany({ where: { sourceId: payment.id, sendPurpose: 'FORWARD' } })).length, 1);
  });

  test('stake delegated from the pool that no lending of ours explains (a crash that lost its row) is taken back', async () => {
    const address = newAddress();
    await s.pay(address, '1', 'TRX');
    await waitFor('the address an account', async () => ((await s.chain.isActivated(address)) ? true : null), 60_000);
    const lent = await s.chain.buildSignedResourceOp(s.gasWallet.privateKey, { kind: 'delegate', resource: 'ENERGY', receiver: address, amountSun: 1_000n * TRX });
    await s.chain.broadcast(lent.signedTx);
    await waitFor('the stake delegated', async () => ((await s.chain.getDelegatedSun(s.gasWallet.address, address)).ENERGY > 0n ? true : null), 60_000);
    await takenBack(address);
    const back = await s.app.prisma.transaction.findFirstOrThrow({ where: { type: 'UNDELEGATE', toAddress: address } });
    assert.deepEqual([back.sourceId, back.sendPurpose, back.stakeSun, back.sendState], [null, 'ENERGY_RECLAIM', 1_000n * TRX, 'CONFIRMED']);
    assert.match(s.worker.output(), new RegExp(`ALERT the pool had ${1_000n * TRX} sun of ENERGY stake delegated to ${address} that no lending of the service explains; taking it back`));
  });

  test('stake delegated to an address after its lending was taken back, with no row of ours to explain it, is taken back too (issue 35, case 3)', async () => {
    const { key } = await s.newMerchant();
    const invoice = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['USDT'] });
    await s.pay(invoice.address, String(invoice.currencies_amounts.USDT), 'USDT');
    await s.waitStatus(key, invoice.id, 'COMPLETED', 180_000);
    await takenBack(invoice.address);
    const payment = await s.paymentOf(invoice.id, 10_000_000n, 10_000);
    const first = await s.app.prisma.transaction.findFirstOrThrow({ where: { type: 'UNDELEGATE', toAddress: invoice.address, sendState: 'CONFIRMED' } });
    assert.equal(first.sourceId, payment.id, "the lending's own taking back");
    // Delegated by hand from the gas wallet: the latest lending to the address is the payment's, whose taking back is done.
    const lent = await s.chain.buildSignedResourceOp(s.gasWallet.privateKey, { kind: 'delegate', resource: 'ENERGY', receiver: invoice.address, amountSun: 1_000n * TRX });
    await s.chain.broadcast(lent.signedTx);
    await waitFor('the stake delegated', async () => ((await s.chain.getDelegatedSun(s.gasWallet.address, invoice.address)).ENERGY > 0n ? true : null), 60_000);
    // Before the fix this waited for ever: the taking back was keyed by that lending, and it was CONFIRMED.
    await takenBack(invoice.address, 90_000);
    const back = await s.app.prisma.transaction.findMany({ where: { type: 'UNDELEGATE', toAddress: invoice.address }, orderBy: { id: 'asc' } });
    assert.deepEqual(back.map((u) => [u.sourceId, u.stakeSun, u.sendState]), [[payment.id, first.stakeSun, 'CONFIRMED'], [null, 1_000n * TRX, 'CONFIRMED']]);
    assert.match(s.worker.output(), new RegExp(`ALERT the pool had ${1_000n * TRX} sun of ENERGY stake delegated to ${invoice.address} that no lending of the service explains; taking it back`));
  });

  test('the taking back never leaves under a forward that relies on energy lent earlier: it waits while the forward is in flight', async () => {
    const { key } = await s.newMerchant();
    const invoice = await s.invoice(key, { type: 'MULTIPLE', currencies: ['USDT'] });
    const address = invoice.address;
    // The first forward: lent three times its estimate, it leaves twice that at the address. It is held 10 blocks
    // on its way, so that its lending is final (no longer holding the one slot of an energy operation in flight to
    // the address, which the gate below takes) well before the payment can close and the taking back begin.
    await s.devnet.fault.delay({ from: address, count: 1, blocks: 10 });
    await s.pay(address, '10', 'USDT');
    const first = await s.paymentOf(invoice.id, 10_000_000n, 180_000);
    await waitFor('the first forward out', () => s.app.prisma.transaction.findFirst({ where: { sourceId: first.id, sendPurpose: 'FORWARD', sendState: { in: ['BROADCAST', 'CONFIRMED'] } } }), 180_000);
    await waitFor('the first lending final', async () => ((await s.app.prisma.transaction.count({ where: { sourceId: first.id, type: 'DELEGATE', sendState: { not: 'CONFIRMED' } } })) === 0 ? true : null), 180_000);
    // The taking back stops at its insert, having found nothing in flight.
    const gate = await s.holdSlot('ENERGY_RECLAIM', address);
    let second: Transaction;
    try {
      // The address (an account since the first forward) gets bandwidth staked by someone else (the faucet), so its
      // next send needs no lending of bytes from the pool: only the taking back is held.
      for (const op of [{ kind: 'stake', resource: 'BANDWIDTH', amountSun: 10_000n * TRX }, { kind: 'delegate', resource: 'BANDWIDTH', receiver: address, amountSun: 5_000n * TRX }] as const) {
        const signed = await s.chain.buildSignedResourceOp(s.devnet.faucetPrivateKey, op);
        await s.chain.broadcast(signed.signedTx);
        await waitFor("the faucet's resource operation in a block", async () => ((await s.chain.getTransactionStatus(signed.txId)).status === 'confirmed' ? true : null), 60_000);
      }
      await s.paymentState(first.id, ['SETTLED'], 180_000);
      await s.insertWaiting(gate);
      // The second forward relies on what is left of the first lending; it is held 40 blocks on its way.
      await s.devnet.fault.delay({ from: address, count: 1, blocks: 40 });
      await s.pay(address, '12', 'USDT');
      second = await s.paymentOf(invoice.id, 12_000_000n, 180_000);
      await waitFor('the second forward broadcast', () => s.app.prisma.transaction.findFirst({ where: { sourceId: second.id, sendPurpose: 'FORWARD', sendState: 'BROADCAST' } }), 180_000);
      assert.equal(await s.app.prisma.transaction.count({ where: { sourceId: second.id, type: 'DELEGATE' } }), 0, 'nothing lent for it: it uses what was lent before');
    } finally {
      await gate.release();
    }
    await s.paymentState(second.id, ['SETTLED', 'FAILED'], 180_000);
    const forwards = await s.app.prisma.transaction.findMany({ where: { sourceId: second.id, sendPurpose: 'FORWARD' }, orderBy: { id: 'asc' } });
    assert.deepEqual(forwards.map((f) => [f.sendState, f.energySource, f.feeSun]), [['CONFIRMED', 'POOL', 0n]], 'it ran on the energy it was checked against');
    await takenBack(address);
  });

  test('TotalEnergyWeight rises between the lending and the send: the stored forward is kept back, the pool lends the rest, and it goes out without burning', async () => {
    const { key } = await s.newMerchant();
    const invoice = await s.invoice(key, { type: 'SINGLE', amount: 10, currencies: ['USDT'] });
    try {
      // Half as much energy again staked on the network, while the forward waits to be stored: every delegation yields two thirds of what it did.
      await s.payWithForwardHeld(invoice, () => s.devnet.setChainParameters({ networkEnergyWeightTrx: 28_500_000_000n }));
      await s.waitStatus(key, invoice.id, 'COMPLETED', 180_000);
    } finally {
      await s.devnet.setChainParameters({ networkEnergyWeightTrx: 19_000_000_000n });
    }
    const payment = await s.app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: invoice.id, type: 'PAYMENT' } });
    const forwards = await s.app.prisma.transaction.findMany({ where: { sourceId: payment.id, sendPurpose: 'FORWARD' } });
    assert.deepEqual(forwards.map((f) => [f.sendState, f.feeSun]), [['CONFIRMED', 0n]], 'the stored forward, kept back and then sent');
    const lendings = await s.app.prisma.transaction.findMany({ where: { sourceId: payment.id, type: 'DELEGATE', resource: 'ENERGY', sendState: 'CONFIRMED' } });
    assert.equal(lendings.length, 2, 'the rest lent for the same attempt');
    await takenBack(invoice.address);
  });

  test('a pool stake the worker books while reconcile runs is counted once: what is in flight and what the ledger booked are read at one instant', async () => {
    // The worker stopped, so that only this test books: the pool's energy stake, landed on chain, is put back to
    // "out, not booked yet" (as it was before the worker saw it final), and booked again as the worker does (the row
    // CONFIRMED, its ledger rows) at the moment reconcile first reads a balance from the chain.
    await s.worker.stop();
    try {
      const stake = await s.app.prisma.transaction.findFirstOrThrow({ where: { sendPurpose: 'POOL_STAKE', type: 'STAKE', resource: 'ENERGY', sendState: 'CONFIRMED' } });
      const entries = await s.app.prisma.ledgerEntry.findMany({ where: { transactionId: stake.id } });
      assert.ok(entries.some((e) => e.kind === 'STAKE'), 'its stake is booked');
      await s.app.prisma.$transaction([
        s.app.prisma.ledgerEntry.deleteMany({ where: { transactionId: stake.id } }),
        s.app.prisma.transaction.update({ where: { id: stake.id }, data: { sendState: 'BROADCAST' } }),
      ]);
      let booked = false;
      const book = () =>
        s.app.prisma.$transaction([
          s.app.prisma.ledgerEntry.createMany({ data: entries.map(({ id: _id, ...e }) => e) }),
          s.app.prisma.transaction.update({ where: { id: stake.id }, data: { sendState: 'CONFIRMED' } }),
        ]);
      const chain = new Proxy(s.chain, {
        get(target, name, receiver) {
          const value = Reflect.get(target, name, receiver) as unknown;
          if (typeof value !== 'function') return value;
          if (name !== 'getTrxBalance' || booked) return value.bind(target);
          return async (...args: unknown[]) => {
            booked = true;
            await book();
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      }) as Chain;
      const result = await reconcile(s.app.prisma, chain, TEST_RULES);
      assert.ok(booked, 'booked while reconcile ran');
      assert.deepEqual(result.mismatches.filter((m) => / stake: /.test(m)), [], 'the stake counted once');
    } finally {
      restart();
    }
  });

  test('books balance', async () => {
    await assertReconciled(s.app.prisma, s.chain, 180_000);
  });
});
