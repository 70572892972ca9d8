import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { ResourceOp } from '@/lib/chain/types';
import { nodeRequestCounts } from '@/lib/chain/meter';
import { SEND_HEAD_FRESH_MS } from '@/lib/chain/tron';
import { HEAD_CURSOR, SOLIDIFIED_CURSOR } from '@/lib/db/chainCursors';
import { reclaimEnergy } from '@/lib/energy/reclaim';
import { poolUpkeepReads } from '@/lib/energy/upkeep';
import { scanHead } from '@/lib/payments/headScan';
import { scanNextBlocks } from '@/lib/payments/scan';
import { forward } from '@/lib/payments/forward';
import { loadPayment } from '@/lib/payments/payment';
import { FixedRateSource } from '@/lib/rates/fixed';
import { TEST_MNEMONIC } from '../helpers/app';
import { waitFor } from '../helpers/devnet';
import { finalPayment, randomAddress, startLibWorld, type LibWorld } from '../helpers/libWorld';

// The invoice address's key is derived (lib/merchants/accounts.ts) from the configured mnemonic.
Object.assign(process.env, { MASTER_KEY: randomBytes(32).toString('hex'), HD_MNEMONIC: TEST_MNEMONIC, DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });

/** The gas wallet's own operation (a stake, a lending), broadcast and waited for until final. */
async function poolOperation({ chain, ctx }: LibWorld, op: ResourceOp): Promise<void> {
  const signed = await chain.buildSignedResourceOp(ctx.gasWallet.privateKey, op);
  await chain.broadcast(signed.signedTx);
  await waitFor(`the ${op.kind} final`, async () => ((await chain.getTransactionStatus(signed.txId)).solidified ? true : null), 30_000);
}

const count = (endpoint: string) => nodeRequestCounts().requests[endpoint] ?? 0;

/** How many times `run` called the chain's `method` with `address` as its first argument. */
async function readsOf({ chain }: LibWorld, method: string, address: string, run: () => Promise<unknown>): Promise<number> {
  const spied = chain as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const original = spied[method]!;
  let calls = 0;
  spied[method] = (...args) => {
    if (args[0] === address) calls++;
    return original.apply(chain, args);
  };
  try {
    await run();
  } finally {
    spied[method] = original;
  }
  return calls;
}

/**
 * One round of a USDT forward's first attempt decides whether it is worth it (`uneconomic`) and
 * where its energy comes from (`energySourceFor`, with the pool's part, `lendingNeed`): the same
 * transfer, judged a few milliseconds apart. Each read the transfer's estimate and the pool itself:
 * two estimates and three reads of what the pool can lend in one round (issue 37). The round's
 * reads are now one value (lib/energy/engine.ts, SendReads), made by the step and dropped with the
 * round. Counted here in this process, the round driven as the worker drives it, against the devnet.
 */
describe("a USDT forward's round", () => {
  let world: LibWorld;

  before(async () => {
    world = await startLibWorld('send-reads-test', { gasTrx: '100000', rates: new FixedRateSource({ TRX: '0.25', USDT: '1' }) });
    // The pool: the gas wallet's stake for energy, final before the round plans on it.
    await poolOperation(world, { kind: 'stake', resource: 'ENERGY', amountSun: 50_000_000_000n });
  });

  after(async () => {
    await world?.stop();
  });

  it("reads the transfer's estimate and what the pool can lend once, and plans the pool's energy as before", async () => {
    const { prisma, ctx } = world;
    const paid = await finalPayment(world, 'USDT', '10');
    const p = await loadPayment(ctx, paid.id);
    const before = { estimates: count('wallet/estimateenergy'), lendable: count('wallet/getcandelegatedmaxsize'), parameters: count('wallet/getchainparameters') };
    let accountAsked = -1;
    const resourceReads = await readsOf(world, 'getAccountResources', paid.toAddress, async () => {
      accountAsked = await readsOf(world, 'isActivated', paid.toAddress, () => forward(ctx, p));
    });
    // Whether the address is an account, asked by the worth's activation cost and the gas's need, and the chain's
    // parameters, read by the estimate and the activation cost: once each in the round (twice each until 2026-12-03).
    assert.equal(accountAsked, 1, 'whether the address is an account: asked once in the round');
    assert.equal(count('wallet/getchainparameters') - before.parameters, 1, "the chain's parameters: read once in the round, by the estimate");
    // Its estimate reads the address's resources; the pool's part of the choice takes the address's energy from it
    // (until 2026-12-03 it read them again, a moment later).
    assert.equal(resourceReads, 1, "the address's resources: read once in the round, by the transfer's estimate");
    assert.equal(count('wallet/estimateenergy') - before.estimates, 1, "the transfer's energy is estimated once in the round");
    assert.equal(count('wallet/getcandelegatedmaxsize') - before.lendable, 1, 'what the pool can lend is read once in the round');
    // What the round decided is what it decided before: the pool's energy, the address made an account first.
    const sends = await prisma.transaction.findMany({ where: { sourceId: p.id }, select: { sendPurpose: true, sendIndex: true, energySource: true, amountUnits: true } });
    assert.deepEqual(sends, [{ sendPurpose: 'FORWARD_GAS', sendIndex: 1, energySource: 'POOL', amountUnits: 1n }], 'the attempt planned on the pool: its activation sent');
    assert.equal((await prisma.transaction.findUniqueOrThrow({ where: { id: p.id } })).waitingReason, null, 'nothing waits');
  });

  /*
   * The rounds of one attempt, from its gas to its send: the gas (which makes the address an account), then the
   * pool's lending once the gas is in a block, then the forward once the lending is (issue 24). Each of them asked
   * again whether the merchant's wallet is a contract and whether the USDT contract has frozen either address
   * (three requests), and the lending's and the forward's binding asked whether the address had become an account
   * in a block not final and searched for that block (four), where the gas's own row says so; the round that built
   * the forward read the energy price again for its fee_limit and for its check before broadcast, beside the
   * estimates each is made with. Issue 37.
   */
  it('asks once an attempt whether its recipient is fit, binds the sends after its gas without asking whether the gas made the address an account, and reads the energy price only with its estimates', async () => {
    const { prisma, ctx, chain } = world;
    const paid = await finalPayment(world, 'USDT', '10');
    const deposit = paid.toAddress;
    const calls = { isContract: 0, isUsdtFrozen: 0, estimateTransfer: 0, depositAskedAfterGasLanded: 0 };
    const spied = chain as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const originals = { isContract: spied.isContract!, isUsdtFrozen: spied.isUsdtFrozen!, estimateTransfer: spied.estimateTransfer!, isActivated: spied.isActivated! };
    for (const name of ['isContract', 'isUsdtFrozen', 'estimateTransfer'] as const) {
      spied[name] = (...args) => {
        calls[name]++;
        return originals[name].apply(chain, args);
      };
    }
    spied.isActivated = async (...args) => {
      const gasLanded = await prisma.transaction.count({ where: { sourceId: paid.id, sendPurpose: 'FORWARD_GAS', blockId: { not: null } } });
      // Asked by a send's binding (the gas's own top-up asks whether it is an account yet, as before).
      if (args[0] === deposit && gasLanded > 0 && new Error().stack?.includes('bindingBlock')) calls.depositAskedAfterGasLanded++;
      return originals.isActivated.apply(chain, args);
    };
    try {
      let sendingRound = { estimates: -1, parameters: -1, resources: -1 };
      await waitFor('the forward broadcast', async () => {
        // The lending final before the round that sends the forward, as on a loaded machine: that round then asks its
        // lending's step again whether the address holds the energy (a top-up, SendOptions.topUp).
        const lending = await prisma.transaction.findFirst({ where: { sourceId: paid.id, sendPurpose: 'FORWARD_ENERGY' } });
        if (lending?.trnHash && !(await chain.getTransactionStatus(lending.trnHash)).solidified) return null;
        const before = { estimates: calls.estimateTransfer, parameters: count('wallet/getchainparameters') };
        const resources = await readsOf(world, 'getAccountResources', deposit, async () => forward(ctx, await loadPayment(ctx, paid.id)));
        const sent = await prisma.transaction.findFirst({ where: { sourceId: paid.id, sendPurpose: 'FORWARD', sendState: { in: ['BROADCAST', 'CONFIRMED'] } } });
        if (!sent) return null;
        sendingRound = { estimates: calls.estimateTransfer - before.estimates, parameters: count('wallet/getchainparameters') - before.parameters, resources };
        return true;
      }, 60_000);
      const purposes = (await prisma.transaction.findMany({ where: { sourceId: paid.id }, orderBy: { id: 'asc' }, select: { sendPurpose: true } })).map((r) => r.sendPurpose);
      assert.deepEqual(purposes.slice(0, 2), ['FORWARD_GAS', 'FORWARD_ENERGY'], 'the gas first, then the lending, each in its round');
      assert.equal(calls.isContract, 1, 'whether the wallet is a contract: asked once for the attempt');
      assert.equal(calls.isUsdtFrozen, 2, 'the blacklist: asked once for each address');
      assert.equal(calls.depositAskedAfterGasLanded, 0, 'the sends after the gas do not ask whether the address it made an account is one');
      // Estimated for its build and again, fresh, for its check before broadcast (the price may rise in between:
      // test/chain/energy-pool.test.ts). Its fee_limit and that check price its energy at their estimate's price.
      assert.equal(sendingRound.estimates, 2, 'the round that builds and broadcasts the forward estimates it for each');
      assert.equal(sendingRound.parameters, 2, "the chain's parameters read by those estimates only");
      // Each estimate reads the address's resources. Until 2026-12-03 the check before broadcast read them again for the
      // address's energy (now its own estimate's), and the bandwidth lending's need for a send whose bytes the address's
      // free bandwidth covers (nothing to lend) read them too: four. The lending's step, asked again in that round once
      // its lending is final (a top-up), read them once more until 2026-12-03: CI failed on that (3 !== 2) where the
      // lending was final before the forward was sent, as it is here on purpose.
      assert.equal(sendingRound.resources, 2, "the address's resources: read by the two estimates only");
    } finally {
      Object.assign(spied, originals);
    }
  });

  /*
   * A send of ours that the head scanner reads executed in a block is marked there (lib/payments/headScan.ts,
   * markSends), as a follow's look of it would: the rounds after it take it as landed without asking the node for
   * its receipt, and a step that waits for it (the lending after the gas) has its block's id without reading the
   * block. Until 2026-12-03 each send's follow asked for its receipt once the scanners had read a newer block, and the
   * gas's and the lending's read their block again: about six requests of a paid USDT invoice (issue 37).
   */
  it('takes a send the head scanner saw executed in a block as landed there, asking the node neither its receipt nor its block', async () => {
    const { prisma, ctx, chain } = world;
    const paid = await finalPayment(world, 'USDT', '10');
    const gasRow = () => prisma.transaction.findFirst({ where: { sourceId: paid.id, sendPurpose: 'FORWARD_GAS' } });
    // The scanners' cursors as a worker's: final up to now (the payment above is recorded), the head scanner reading on.
    const final = { blockNumber: await chain.getBlockNumber(), blockTime: new Date() };
    await prisma.chainCursor.upsert({ where: { name: SOLIDIFIED_CURSOR }, create: { name: SOLIDIFIED_CURSOR, ...final }, update: final });
    // The gas broadcast by a round.
    await waitFor('the gas broadcast', async () => {
      await forward(ctx, await loadPayment(ctx, paid.id));
      return (await gasRow())?.sendState === 'BROADCAST' ? true : null;
    }, 30_000);
    const gas = (await gasRow())!;
    const gasBlock = await waitFor('the gas in a block', async () => (await chain.getTransactionStatus(gas.trnHash)).blockNumber, 30_000);
    const asked = { receipts: 0, blocks: 0 };
    const spied = chain as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const originals = { getTransactionStatus: spied.getTransactionStatus!, getBlockIdHolding: spied.getBlockIdHolding! };
    spied.getTransactionStatus = (...args) => {
      if (args[0] === gas.trnHash) asked.receipts++;
      return originals.getTransactionStatus.apply(chain, args);
    };
    spied.getBlockIdHolding = (...args) => {
      if (args[1] === gas.trnHash) asked.blocks++;
      return originals.getBlockIdHolding.apply(chain, args);
    };
    try {
      // Rounds as the worker's: the head scanner reads, then the forward's round follows its sends and plans the next.
      await waitFor('the lending stored', async () => {
        await scanHead(ctx);
        await forward(ctx, await loadPayment(ctx, paid.id));
        return (await prisma.transaction.findFirst({ where: { sourceId: paid.id, sendPurpose: 'FORWARD_ENERGY' } })) ? true : null;
      }, 60_000);
      const marked = (await gasRow())!;
      assert.equal(marked.blockNumber, gasBlock, 'the gas is marked in the block it is in');
      assert.equal(marked.blockId, await originals.getBlockIdHolding.call(chain, gasBlock, gas.trnHash), "the gas's block id: the block that holds it");
      assert.equal(asked.receipts, 0, "the gas's receipt is not asked before its block can be final");
      assert.equal(asked.blocks, 0, "the gas's block is not read for its id");
    } finally {
      Object.assign(spied, originals);
      await prisma.chainCursor.deleteMany({ where: { name: { in: [SOLIDIFIED_CURSOR, HEAD_CURSOR] } } });
    }
  });

  /*
   * Once a send's block is final, its follow asked the node for its receipt to book it (what it burned, the energy it
   * used). The scanner of solidified blocks reads the receipts of every block with contract calls (every block of
   * mainnet) for the payments in it, and now keeps those of our sends in flight on their rows (lib/payments/scan.ts,
   * keepFinalReceipts): the follow books from there. Until 2026-12-03 a USDT forward's receipt was asked again.
   */
  it("books a USDT forward from the receipt the scanner of solidified blocks read with its final block, without asking the node for it", async () => {
    const { prisma, ctx, chain } = world;
    // Forwarding, as the worker's forward finds a payment it settles once its forward is booked.
    const paid = await prisma.transaction.update({ where: { id: (await finalPayment(world, 'USDT', '10')).id }, data: { paymentState: 'FORWARDING' } });
    const final = { blockNumber: await chain.getBlockNumber(), blockTime: new Date() };
    await prisma.chainCursor.upsert({ where: { name: SOLIDIFIED_CURSOR }, create: { name: SOLIDIFIED_CURSOR, ...final }, update: final });
    const asked = new Set<unknown>();
    const spied = chain as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const original = spied.getTransactionStatus!;
    spied.getTransactionStatus = (...args) => {
      asked.add(args[0]);
      return original.apply(chain, args);
    };
    const forwardRow = () => prisma.transaction.findFirst({ where: { sourceId: paid.id, sendPurpose: 'FORWARD' } });
    try {
      // Rounds as the worker's: the scanners read on, the forward's round follows its sends.
      await waitFor('the forward confirmed', async () => {
        await scanHead(ctx);
        await scanNextBlocks(ctx);
        await forward(ctx, await loadPayment(ctx, paid.id));
        return (await forwardRow())?.sendState === 'CONFIRMED' ? true : null;
      }, 90_000);
    } finally {
      spied.getTransactionStatus = original;
      await prisma.chainCursor.deleteMany({ where: { name: { in: [SOLIDIFIED_CURSOR, HEAD_CURSOR] } } });
    }
    const booked = (await forwardRow())!;
    assert.ok(booked.finalReceipt !== null, "the forward's receipt is kept on its row by the scan of its final block");
    assert.equal(asked.has(booked.trnHash), false, "the forward's receipt is not asked of the node");
    // Booked as a receipt asked of the node books it.
    const receipt = await chain.getTransactionStatus(booked.trnHash);
    assert.equal(receipt.status, 'confirmed');
    assert.deepEqual(
      { blockNumber: booked.blockNumber, feeSun: booked.feeSun, energyUsed: booked.energyUsed, bandwidthUsed: booked.bandwidthUsed },
      { blockNumber: receipt.blockNumber, feeSun: receipt.feeSun, energyUsed: receipt.energyUsed, bandwidthUsed: receipt.bandwidthUsed },
      "the forward's booking: the node's receipt",
    );
    assert.ok(booked.energyUsed !== null && booked.energyUsed > 0n, 'a USDT transfer uses energy');
  });
});

/**
 * The head scanner marks our sends in flight that it reads executed in a block (lib/payments/headScan.ts, markSends),
 * and a follow takes the mark as a look that found the send there. A reorganisation that takes the send out of that
 * block must take the mark off too: what waits for the send to land would otherwise be built on a block the chain no
 * longer has, and wait for it until its look at finality.
 */
describe("the head scanner's marks of our sends", () => {
  let world: LibWorld;

  before(async () => {
    // Final 100 blocks deep (10 s): the block that holds the send can be replaced.
    world = await startLibWorld('send-marks-test', { gasTrx: '1000', solidifiedDepth: 100 });
  });

  after(async () => {
    await world?.stop();
  });

  it('marks a send of ours in the block it is in, and takes the mark off once a reorganisation leaves it out', async () => {
    const { prisma, ctx, chain, devnet } = world;
    const final = { blockNumber: await chain.getBlockNumber(), blockTime: new Date() };
    await prisma.chainCursor.upsert({ where: { name: SOLIDIFIED_CURSOR }, create: { name: SOLIDIFIED_CURSOR, ...final }, update: final });
    const signed = await chain.buildSignedTrxTransfer(ctx.gasWallet.privateKey, randomAddress(), 1_000_000n);
    const merchant = await prisma.merchant.create({ data: { email: `marks-${Date.now()}@example.com`, topupWalletAddress: randomAddress(), activationWalletAddress: randomAddress(), webhookSecretEnc: 'unused' } });
    // Stored as a send step stores one, then broadcast.
    const row = await prisma.transaction.create({
      data: { merchantId: merchant.id, type: 'TRANSFER', trnHash: signed.txId, chainRef: `${signed.txId}:send`, fromAddress: ctx.gasWallet.address, toAddress: randomAddress(), amountUnits: 1_000_000n, currency: 'TRX', sendKey: `marks:${signed.txId}`, sendPurpose: 'PAYOUT_GAS', sendAttempt: 1, costPayer: 'SERVICE', sendState: 'BROADCAST', signedTx: signed.signedTx as never, expiresAt: new Date(signed.expiresAt) },
    });
    await chain.broadcast(signed.signedTx);
    const inBlock = await waitFor('the send marked in its block', async () => {
      await scanHead(ctx);
      const r = await prisma.transaction.findUniqueOrThrow({ where: { id: row.id } });
      return r.blockId !== null ? { number: r.blockNumber!, id: r.blockId } : null;
    }, 30_000);
    assert.equal(inBlock.id, await chain.getBlockIdHolding(inBlock.number, signed.txId), 'marked in the block that holds it');
    await devnet.reorg({ fromBlock: inBlock.number, leaveOut: [signed.txId] });
    const after = await waitFor('the mark taken off or moved', async () => {
      await scanHead(ctx);
      const r = await prisma.transaction.findUniqueOrThrow({ where: { id: row.id } });
      return r.blockId !== inBlock.id ? r : null;
    }, 30_000);
    // Left out of the new branch: in no block, or in the block of the new branch that holds it now.
    if (after.blockId === null) assert.equal(after.blockNumber, null, 'in no block: no height either');
    else assert.equal(after.blockId, await chain.getBlockIdHolding(after.blockNumber!, signed.txId), 'moved to the block that holds it now');
    await prisma.chainCursor.deleteMany({ where: { name: { in: [SOLIDIFIED_CURSOR, HEAD_CURSOR] } } });
  });
});

/**
 * The energy upkeep keeps its read of the pool while nothing of ours could have changed it
 * (lib/energy/upkeep.ts), and looks for what to take back when what keeps the accounts it lent to
 * busy changes. A send ending or a payment closing changes nothing of the pool's account, but until
 * 2026-12-01 such a change read the pool again (three requests) while anything was lent: two or
 * three times for each USDT invoice (issue 37). Now only the look is made again.
 */
describe("the energy upkeep's reads while the pool has lent", () => {
  let world: LibWorld;

  before(async () => {
    world = await startLibWorld('upkeep-reads-test', { gasTrx: '100000' });
  });

  after(async () => {
    await world?.stop();
  });

  it('reads the pool again only when a send of ours lands, and looks again for what to take back when a receiver is done without reading it', async () => {
    const { prisma, ctx } = world;
    const receiver = randomAddress();
    await world.devnet.pay(receiver, '1', 'TRX');
    await poolOperation(world, { kind: 'stake', resource: 'ENERGY', amountSun: 50_000_000_000n });
    await poolOperation(world, { kind: 'delegate', resource: 'ENERGY', receiver, amountSun: 10_000_000_000n });
    // What keeps the receiver busy: a payment at it, open.
    const merchant = await prisma.merchant.create({ data: { email: `upkeep-${Date.now()}@example.com`, topupWalletAddress: randomAddress(), activationWalletAddress: randomAddress(), webhookSecretEnc: 'unused' } });
    const payment = await prisma.transaction.create({
      data: { merchantId: merchant.id, type: 'PAYMENT', trnHash: 'ef'.repeat(32), chainRef: `${'ef'.repeat(32)}:0`, fromAddress: randomAddress(), toAddress: receiver, amountUnits: 1_000_000n, currency: 'TRX', paymentState: 'FORWARDING' },
    });
    const reads = poolUpkeepReads();
    const poolRequests = () => count('wallet/getaccount') + count('wallet/getaccountresource') + count('wallet/getcandelegatedmaxsize');
    const round = async (what: string, expected: { asked: number; lookForLent: boolean }) => {
      const before = poolRequests();
      const { status, lookForLent } = await reads.pool(ctx);
      assert.equal(poolRequests() - before, expected.asked, `${what}: requests reading the pool`);
      assert.equal(lookForLent, expected.lookForLent, `${what}: a look for what to take back`);
      assert.equal(status.stake.delegatedSun.ENERGY, 10_000_000_000n, `${what}: what the pool lent`);
    };
    await round('the first round reads the pool and looks', { asked: 3, lookForLent: true });
    await round('nothing changed: the read is kept, no look', { asked: 0, lookForLent: false });
    // A customer's payment elsewhere: a new row in the books, nothing of the pool's (until 2026-12-01 every new row read it again).
    await prisma.transaction.create({
      data: { merchantId: merchant.id, type: 'PAYMENT', trnHash: 'ab'.repeat(32), chainRef: `${'ab'.repeat(32)}:0`, fromAddress: randomAddress(), toAddress: randomAddress(), amountUnits: 1_000_000n, currency: 'TRX', paymentState: 'AML_PENDING' },
    });
    await round("another address's payment: a look (an open payment more), on the kept read of the pool", { asked: 0, lookForLent: true });
    // Our sends from or to the gas wallet change the pool only when they land in a block (until 2026-12-02 one stored, and
    // one ending, read it again, and a lending or an activation every round until it was seen in a block; issue 37).
    // Stored by the gas wallet's send step as `state` (signed, unless it is written as it ended), of attempt `attempt`.
    type StoredState = { sendState: 'SIGNED' | 'CONFIRMED' | 'FAILED'; blockNumber: number | null };
    const stored = async (hash: string, purpose: 'FORWARD_GAS' | 'REFUND_GAS' | 'PAYOUT_GAS', state: StoredState = { sendState: 'SIGNED', blockNumber: null }, attempt = 1) =>
      prisma.transaction.create({
        data: { merchantId: merchant.id, type: 'TRANSFER', trnHash: hash, chainRef: `${hash}:send`, fromAddress: ctx.gasWallet.address, toAddress: randomAddress(), amountUnits: 1_000_000n, currency: 'TRX', sendKey: `${payment.id}:${purpose}:${attempt}`, sendPurpose: purpose, sendAttempt: attempt, sourceId: payment.id, costPayer: 'SERVICE', ...state },
      });
    const gas = await stored('ac'.repeat(32), 'FORWARD_GAS');
    await round('gas from the gas wallet stored, in no block: the kept read (a look: a send more in flight)', { asked: 0, lookForLent: true });
    await round('still in no block', { asked: 0, lookForLent: false });
    await prisma.transaction.update({ where: { id: gas.id }, data: { blockNumber: 1_000_000 } });
    await round('seen in a block (its follow records it): the pool read again', { asked: 3, lookForLent: true });
    await round('nothing changed since that read', { asked: 0, lookForLent: false });
    await prisma.transaction.update({ where: { id: gas.id }, data: { sendState: 'CONFIRMED' } });
    await round('final in the block it was seen in: the kept read (a look: a send less in flight)', { asked: 0, lookForLent: true });
    const unseen = await stored('ad'.repeat(32), 'REFUND_GAS');
    await round('another stored', { asked: 0, lookForLent: true });
    await prisma.transaction.update({ where: { id: unseen.id }, data: { sendState: 'CONFIRMED', blockNumber: 1_000_001 } });
    await round('final in a block it was never seen in: the pool read again', { asked: 3, lookForLent: true });
    const dead = await stored('ae'.repeat(32), 'PAYOUT_GAS');
    await round('a third stored', { asked: 0, lookForLent: true });
    await prisma.transaction.update({ where: { id: dead.id }, data: { sendState: 'FAILED' } });
    await round('dead in no block: the kept read', { asked: 0, lookForLent: true });
    // Stored and ended between two rounds, never in flight at one: on the tests' devnets a block is final a few hundred ms
    // after it is made, and a busy machine's round can take longer (energy-pool waited 180 s for a taking back, twice, on
    // 2026-12-02: the lending had come and gone between two rounds, and the kept read showed nothing lent until its refresh).
    await stored('b1'.repeat(32), 'FORWARD_GAS', { sendState: 'CONFIRMED', blockNumber: 1_000_002 }, 2);
    await round('a send stored and final in a block between two rounds: the pool read again', { asked: 3, lookForLent: true });
    await round('nothing changed since that read, again', { asked: 0, lookForLent: false });
    await stored('b2'.repeat(32), 'REFUND_GAS', { sendState: 'FAILED', blockNumber: null }, 2);
    await round('a send stored and dead in no block between two rounds: the kept read, no look', { asked: 0, lookForLent: false });
    // The receiver is done with it: its payment closes (a change in the books, none in the pool's account).
    await prisma.transaction.update({ where: { id: payment.id }, data: { paymentState: 'SETTLED' } });
    await round('the receiver is done: a look, on the kept read of the pool', { asked: 0, lookForLent: true });
    await round('nothing changed since that look', { asked: 0, lookForLent: false });
    // The look takes back what the payment's lending lent (its row, final), reading what is lent to the receiver once:
    // until 2026-12-03 it read it again to build the taking back, a moment later (issue 37).
    const lendingHash = randomBytes(32).toString('hex');
    await prisma.transaction.create({
      data: { merchantId: merchant.id, type: 'DELEGATE', trnHash: lendingHash, chainRef: `${lendingHash}:send`, fromAddress: ctx.gasWallet.address, toAddress: receiver, amountUnits: 0n, currency: 'TRX', resource: 'ENERGY', stakeSun: 10_000_000_000n, sendKey: `${payment.id}:FORWARD_ENERGY:1`, sendPurpose: 'FORWARD_ENERGY', sendAttempt: 1, sourceId: payment.id, costPayer: 'SERVICE', sendState: 'CONFIRMED', blockNumber: 1_000_003 },
    });
    const lentReads = count('wallet/getdelegatedresourcev2');
    const { status } = await reads.pool(ctx);
    await reclaimEnergy(ctx, status.stake);
    assert.equal(count('wallet/getdelegatedresourcev2') - lentReads, 1, 'what is lent to the receiver: read once');
    const takingBack = await prisma.transaction.findFirstOrThrow({ where: { sendPurpose: 'ENERGY_RECLAIM', toAddress: receiver } });
    assert.equal(takingBack.stakeSun, 10_000_000_000n, 'the taking back takes back what is lent');
  });

  it("takes back a final lending whose payment the books do not show final yet, bound to the payment's block, not refused by the binding guard", async () => {
    // The lending references its payment's block (lib/energy/pool.ts), so once the lending is final that block is too; the
    // payment's own row says so only when the payments job next looks at it. Between the two, the taking back's binding
    // block is the payment's (lib/sends/steps.ts, bindingBlock). Until 2026-12-06 its plan built on the head and the guard
    // threw "built without reference block" at every round until the row caught up (five times in a default run).
    const { prisma, ctx, chain } = world;
    const receiver = randomAddress();
    const paid = await world.devnet.pay(receiver, '1', 'TRX');
    const paidIn = await waitFor('the payment in a block', async () => (await chain.getTransactionStatus(paid)).blockNumber, 30_000);
    const paidBlockId = await chain.getBlockIdHolding(paidIn, paid);
    assert.ok(paidBlockId, "the payment's block");
    await poolOperation(world, { kind: 'stake', resource: 'ENERGY', amountSun: 20_000_000_000n });
    await poolOperation(world, { kind: 'delegate', resource: 'ENERGY', receiver, amountSun: 10_000_000_000n });
    const merchant = await prisma.merchant.create({ data: { email: `unsolid-${Date.now()}@example.com`, topupWalletAddress: randomAddress(), activationWalletAddress: randomAddress(), webhookSecretEnc: 'unused' } });
    // Forwarded and settled; the row's block not yet marked final.
    const payment = await prisma.transaction.create({
      data: { merchantId: merchant.id, type: 'PAYMENT', trnHash: paid, chainRef: `${paid}:0`, fromAddress: randomAddress(), toAddress: receiver, amountUnits: 1_000_000n, currency: 'TRX', paymentState: 'SETTLED', solidified: false, blockNumber: paidIn, blockId: paidBlockId },
    });
    const lendingHash = randomBytes(32).toString('hex');
    await prisma.transaction.create({
      data: { merchantId: merchant.id, type: 'DELEGATE', trnHash: lendingHash, chainRef: `${lendingHash}:send`, fromAddress: ctx.gasWallet.address, toAddress: receiver, amountUnits: 0n, currency: 'TRX', resource: 'ENERGY', stakeSun: 10_000_000_000n, sendKey: `${payment.id}:FORWARD_ENERGY:1`, sendPurpose: 'FORWARD_ENERGY', sendAttempt: 1, sourceId: payment.id, costPayer: 'SERVICE', sendState: 'CONFIRMED', blockNumber: paidIn + 1 },
    });
    await reclaimEnergy(ctx, await chain.getStake(ctx.gasWallet.address));
    const takingBack = await prisma.transaction.findFirstOrThrow({ where: { sendPurpose: 'ENERGY_RECLAIM', toAddress: receiver } });
    const raw = (takingBack.signedTx as { raw_data: { ref_block_bytes: string; ref_block_hash: string } }).raw_data;
    assert.deepEqual([raw.ref_block_bytes, raw.ref_block_hash], [paidIn.toString(16).slice(-4).padStart(4, '0'), paidBlockId.slice(16, 32)], "the taking back references the payment's block");
    await waitFor('the lending taken back on chain', async () => ((await chain.getDelegatedSun(ctx.gasWallet.address, receiver)).ENERGY === 0n ? true : null), 30_000);
  });
});

/**
 * Whether an address is an account (wallet/getaccount) is asked of the node at the head and in
 * solidified state each time a forward binds its send (lib/sends/steps.ts, bindingBlock: the
 * merchant's wallet, twice a round) and each time a TRX transfer is estimated. An account seen in
 * solidified state is one for ever (java-tron deletes none; no reorganisation reaches a final
 * block): lib/chain/tron.ts answers it from memory (issue 37). One that is an account only at the
 * head may be one only on a branch a reorganisation replaces: asked every time.
 */
describe('whether an address is an account', () => {
  let world: LibWorld;

  before(async () => {
    world = await startLibWorld('accounts-known-test', { gasTrx: '1000' });
  });

  after(async () => {
    await world?.stop();
  });

  it('is asked once an address is an account in solidified state, never again; while it is one only at the head, every time', async () => {
    const { chain, devnet } = world;
    const asked = () => count('wallet/getaccount') + count('walletsolidity/getaccount');
    const ask = async (address: string) => {
      const before = asked();
      const answers = [await chain.isActivated(address), await chain.isActivated(address, 'solidified')];
      return { answers, requests: asked() - before };
    };
    const wallet = randomAddress();
    await devnet.pay(wallet, '1', 'TRX');
    await waitFor('the wallet an account in solidified state', async () => ((await chain.isActivated(wallet, 'solidified')) ? true : null), 30_000);
    assert.deepEqual(await ask(wallet), { answers: [true, true], requests: 0 }, 'an account in solidified state: answered without the node');

    const fresh = randomAddress();
    await devnet.holdFinality(true);
    try {
      await devnet.pay(fresh, '1', 'TRX');
      await waitFor('the fresh address an account at the head', async () => ((await chain.isActivated(fresh)) ? true : null), 30_000);
      assert.deepEqual(await ask(fresh), { answers: [true, false], requests: 2 }, 'an account at the head only: both asked');
      assert.deepEqual(await ask(fresh), { answers: [true, false], requests: 2 }, 'and asked again');
    } finally {
      await devnet.holdFinality(false);
    }
    const never = randomAddress();
    assert.deepEqual(await ask(never), { answers: [false, false], requests: 2 }, 'no account: asked each time');
    assert.deepEqual(await ask(never), { answers: [false, false], requests: 2 }, 'and again');
  });
});

/**
 * A send is built on the head block: its expiration counts from the block's time, and it references
 * the block unless it relies on a newer one. Each build asked the node for the head (wallet/getblock),
 * five requests a paid USDT invoice, while the worker's head scanner had read it moments before (issue
 * 37). A head read here within SEND_HEAD_FRESH_MS is used; an older one, or one below the block the
 * send must reference, is read again.
 */
describe('the head a send is built on', () => {
  let world: LibWorld;

  before(async () => {
    world = await startLibWorld('send-head-test', { gasTrx: '1000' });
  });

  after(async () => {
    await world?.stop();
  });

  it('is the head read moments before, without asking the node; read again once that is older than a block, or below the block the send references', async () => {
    const { chain, ctx } = world;
    const refOf = (signed: { signedTx: unknown }) => (signed.signedTx as { raw_data: { ref_block_bytes: string } }).raw_data.ref_block_bytes;
    const bytesOf = (n: number) => n.toString(16).slice(-4).padStart(4, '0');
    const build = async (refBlock?: { number: number; id: string }) => {
      const before = count('wallet/getblock');
      const signed = await chain.buildSignedTrxTransfer(ctx.gasWallet.privateKey, randomAddress(), 1n, refBlock);
      return { signed, asked: count('wallet/getblock') - before };
    };
    const head = await chain.getHead();
    const fresh = await build();
    assert.equal(fresh.asked, 0, 'the head read moments before: not asked again');
    assert.equal(refOf(fresh.signed), bytesOf(head.number), 'it references that head');
    assert.equal(fresh.signed.expiresAt, head.timestamp + 60_000, 'and expires counting from its time');

    await waitFor('a newer block', async () => ((await chain.getBlockNumber()) > head.number + 1 ? true : null), 10_000);
    const seen = await chain.getHead();
    // A reference above the head seen, as a send's binding may name a block learnt from a receipt before any head read here shows it.
    const ahead = await build({ number: seen.number + 5, id: 'ab'.repeat(32) });
    assert.equal(ahead.asked, 1, 'a reference above the head seen: the head is read');

    await new Promise((r) => setTimeout(r, SEND_HEAD_FRESH_MS + 100));
    const stale = await build();
    assert.equal(stale.asked, 1, 'the head seen is older than SEND_HEAD_FRESH_MS: read again');
  });
});
