import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Chain } from '@/lib/chain';
import type { RefBlock } from '@/lib/chain/types';
import { loadPayment } from '@/lib/payments/payment';
import { refund } from '@/lib/payments/refund';
import { ensureSend, type PlannedSend } from '@/lib/sends/steps';
import { TEST_MNEMONIC } from '../helpers/app';
import { waitFor } from '../helpers/devnet';
import { finalPayment, randomAddress, startLibWorld, type LibWorld } from '../helpers/libWorld';

// The invoice address's key is derived (lib/merchants/accounts.ts) from the configured mnemonic.
Object.assign(process.env, { MASTER_KEY: randomBytes(32).toString('hex'), HD_MNEMONIC: TEST_MNEMONIC, DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });

/**
 * The chain as one worker sees it when the node answers its estimates late (a slow node, or a
 * worker the machine did not run for a while): the first `prompt` estimates are answered at once,
 * later ones only once the test lets them through. Every answer is the devnet's own.
 */
function lateEstimates(chain: Chain, prompt: number) {
  let calls = 0;
  let letThrough!: () => void;
  const released = new Promise<void>((resolve) => (letThrough = resolve));
  let reached!: () => void;
  const waiting = new Promise<void>((resolve) => (reached = resolve));
  const late = new Proxy(chain, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      if (prop !== 'estimateTransfer') return value.bind(target);
      return async (...args: unknown[]) => {
        if (++calls > prompt) {
          reached();
          await released;
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { chain: late, waiting, letThrough };
}

/**
 * What a send deducts from the payment it spends is recorded on that payment (migration 0057:
 * reconcile recomputes a refund's kept cost from it) by the build that made the send. A build
 * whose send is then not stored (another worker stored the attempt first: its lease ran out while
 * the machine was busy) must record nothing: before, its figures were written inside the build,
 * and a round that lost the race after the winner's send had made the recipient an account
 * recorded a cost without the creation beside a send that paid it. The fresh-clone run of 4bbaee2
 * failed on exactly that in refund-held ("refund sent 28900000 TRX, its recorded cost leaves 30000000").
 */
describe("a refund's recorded cost", () => {
  let world: LibWorld;

  before(async () => {
    world = await startLibWorld('send-records-test', { gasTrx: '1000' });
  });

  after(async () => {
    await world?.stop();
  });

  it('is the cost of the send that was stored, when a second round of the same attempt built after the first one landed', async () => {
    const { prisma, chain, ctx } = world;
    // Paid from an address that is no account yet (as after an exchange's withdrawal from a fresh one): its refund creates it.
    const paid = await finalPayment(world, 'TRX', '30');

    // The late round judges the refund worth it (its first estimate), then waits for its build's estimate.
    const late = lateEstimates(chain, 1);
    const lateRound = refund({ ...ctx, chain: late.chain }, await loadPayment(ctx, paid.id));
    await Promise.race([late.waiting, lateRound.then(() => assert.fail("the late round ended without asking for its build's estimate"))]);

    // Meanwhile another round builds the attempt, stores it and broadcasts it: its send creates the account.
    await refund(ctx, await loadPayment(ctx, paid.id));
    const stored = await prisma.transaction.findFirstOrThrow({ where: { sourceId: paid.id, sendPurpose: 'REFUND' } });
    assert.equal(stored.createsAccount, true, "the stored send was costed with the sender's account creation");
    await waitFor('the refund in a block', async () => ((await chain.getTransactionStatus(stored.trnHash)).blockNumber !== null ? true : null), 30_000);

    // The late round's build is estimated now, the account made: it cannot store its attempt (the stored one has its key).
    late.letThrough();
    await lateRound;

    const sends = await prisma.transaction.findMany({ where: { sourceId: paid.id, sendPurpose: 'REFUND' }, select: { id: true } });
    assert.deepEqual(sends, [{ id: stored.id }], 'one send of the attempt');
    const { costSun } = await prisma.transaction.findUniqueOrThrow({ where: { id: paid.id } });
    assert.equal(costSun, paid.amountUnits - stored.amountUnits, 'the recorded cost is what the stored send deducted');
  });
});

/**
 * Two sends of ours with the same bytes are one transaction: the same sender, recipient and amount,
 * built on the same head (the chain layer builds on a head read within SEND_HEAD_FRESH_MS, and a
 * transaction's timestamp is its head's). The node would answer the second's broadcast as already
 * known, and the devnet's faucet took that as paid (fixed 2026-12-06). A send of ours is stored under
 * its txid (`chain_ref`, unique) before it is broadcast, so the second cannot be stored, broadcast or
 * reported as sent: its round waits and a later one builds it again on a newer head. The steps of the
 * service keep such twins apart before they are built (one send in flight from an address, gas and
 * lending bound to what is in flight to it); this is the last guard, driven here with the twin's bytes.
 */
describe('a send whose bytes are another stored send of ours', () => {
  let world: LibWorld;

  before(async () => {
    world = await startLibWorld('send-twins-test', { gasTrx: '1000' });
  });

  after(async () => {
    await world?.stop();
  });

  it('is not stored nor sent: its round waits, and a later round builds it on a newer head, so both arrive', async () => {
    const { prisma, chain, ctx } = world;
    const [a, b] = [await finalPayment(world, 'TRX', '1'), await finalPayment(world, 'TRX', '1')];
    const recipient = randomAddress();
    const build = (refBlock?: RefBlock): Promise<PlannedSend> =>
      chain.buildSignedTrxTransfer(ctx.gasWallet.privateKey, recipient, 2_000_000n, refBlock).then((signed) => ({ type: 'TRANSFER', from: ctx.gasWallet.address, to: recipient, amountUnits: 2_000_000n, currency: 'TRX', costPayer: 'SERVICE', signed }));
    // A purpose no other index keeps to one in flight (a payout's gas): only the txid's uniqueness stands between the twins.
    const step = { purpose: 'PAYOUT_GAS', index: 1 } as const;
    let firstBuilt: PlannedSend | undefined;
    await ensureSend(ctx, a, step, async (refBlock) => (firstBuilt = await build(refBlock)));
    const first = await prisma.transaction.findFirstOrThrow({ where: { sourceId: a.id } });
    assert.deepEqual([first.trnHash, first.sendState], [firstBuilt!.signed.txId, 'BROADCAST'], 'the first send stored and broadcast');
    // The second anchor's round builds the very same bytes.
    const twin = await ensureSend(ctx, b, step, async () => firstBuilt!);
    assert.equal(twin.state, 'pending', 'the twin waits');
    assert.equal(await prisma.transaction.count({ where: { sourceId: b.id } }), 0, 'nothing stored for the twin, so nothing broadcast or reported for it');
    // Later rounds build it afresh; once the head the chain layer builds on is newer, it is another transaction.
    const later = await waitFor('the second send stored', async () => {
      await ensureSend(ctx, b, step, build);
      return prisma.transaction.findFirst({ where: { sourceId: b.id } });
    }, 30_000);
    assert.notEqual(later.trnHash, firstBuilt!.signed.txId, 'another transaction');
    await waitFor('both sends in the recipient', async () => ((await chain.getTrxBalance(recipient)) === 4_000_000n ? true : null), 30_000);
  });
});
