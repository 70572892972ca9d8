import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Chain } from '@/lib/chain';
import { loadPayment } from '@/lib/payments/payment';
import { refund } from '@/lib/payments/refund';
import { TEST_MNEMONIC } from '../helpers/app';
import { waitFor } from '../helpers/devnet';
import { finalPayment, startLibWorld, type LibWorld } from '../helpers/libWorld';

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
