import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TronWeb } from 'tronweb';
import { ensureGas } from '@/lib/sends/gas';
import type { Anchor, SendOutcome } from '@/lib/sends/steps';
import { waitFor } from '../helpers/devnet';
import { startLibWorld, type LibWorld } from '../helpers/libWorld';

const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;

/**
 * A step that tops up (SendOptions.topUp: the gas of a wave, a lending) is done only once its planner
 * needs nothing more, also when its send turns final in the very call that asks (issue 35). A payout's
 * wave lent the pool's energy but not its bandwidth asks its gas step again for the bytes the address
 * must burn; when the wave's activation (the same step's first send) turned final during that call,
 * the call answered "confirmed" for the activation, the planner was never asked, and the wave went out
 * without the gas: the node refused its second send (BANDWITH_ERROR) until it expired a minute later.
 * Here the step is driven round by round as the worker drives it, against the devnet and a database.
 */
describe('a top-up step whose send turns final', () => {
  let world: LibWorld;

  before(async () => {
    world = await startLibWorld('send-topup-test', { gasTrx: '100' });
  });

  after(async () => {
    await world?.stop();
  });

  it('asks its planner again before it says done, and the address holds what the planner asked for', async () => {
    const { prisma, chain, ctx } = world;
    const address = randomAddress();
    const merchant = await prisma.merchant.create({ data: { email: `topup-${Date.now()}@example.com`, topupWalletAddress: randomAddress(), activationWalletAddress: randomAddress(), webhookSecretEnc: 'unused' } });
    const invoice = await prisma.invoice.create({
      data: { merchantId: merchant.id, type: 'MULTIPLE_TRANSFER', currencies: ['USDT'], address, addressIndex: 1, expiredAt: new Date(Date.now() + 3_600_000) },
    });
    // A payout's top-up, final: what the wave's sends are made for.
    const anchor: Anchor = await prisma.transaction.create({
      data: {
        merchantId: merchant.id,
        invoiceId: invoice.id,
        type: 'TOPUP',
        trnHash: 'ab'.repeat(32),
        chainRef: `${'ab'.repeat(32)}:0`,
        fromAddress: randomAddress(),
        toAddress: address,
        amountUnits: 10_000_000n,
        currency: 'USDT',
      },
    });
    // The pool's planner: 1 sun makes the address an account; once it is one, the bytes it must burn.
    const bytesSun = 414_000n;
    const need = async () => ((await chain.isActivated(address)) ? bytesSun : 1n);
    // Asked every round, as the worker asks, until the step is no longer pending.
    const done = await waitFor<SendOutcome>(
      'the gas step done',
      async () => {
        const outcome = await ensureGas(ctx, anchor, { purpose: 'PAYOUT_GAS', index: 1, address }, address, need, 'PAYOUT', { topUp: true, energySource: 'POOL' });
        return outcome.state === 'pending' ? null : outcome;
      },
      60_000,
    );
    assert.notEqual(done.state, 'exhausted');
    const sends = await prisma.transaction.findMany({ where: { sourceId: anchor.id, sendPurpose: 'PAYOUT_GAS' }, orderBy: { sendAttempt: 'asc' } });
    assert.deepEqual(
      sends.map((s) => [s.sendAttempt, s.sendState, s.amountUnits]),
      [
        [1, 'CONFIRMED', 1n],
        [2, 'CONFIRMED', bytesSun - 1n],
      ],
      'the activation, then the bytes: each final before the step said done',
    );
    assert.equal(await chain.getTrxBalance(address), bytesSun, 'the address holds what the planner asked for when the step says done');
  });
});
