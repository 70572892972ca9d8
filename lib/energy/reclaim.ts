import { ensureSend, followSend } from '@/lib/payments/sends';
import { OPEN_PAYMENT_STATES } from '@/lib/payments/states';
import type { WorkerContext } from '@/lib/worker/context';

/**
 * Takes back what the pool lent (docs/energy.md, "Taking energy back"): for every account the
 * pool has delegated to (read from the chain, so a delegation a crashed worker made and never
 * recorded as used is found too), once nothing there needs it: no send of ours in flight from
 * or to the address, and no payment at it still open (it may be about to send). The UNDELEGATE
 * is a stored send anchored on the payment of the latest lending to the address, one per
 * lending (index = that DELEGATE row's id), so a crash never sends it twice. The pool's own
 * operations in flight (an operator's stake) are followed here too.
 */
export async function reclaimEnergy(ctx: WorkerContext): Promise<void> {
  const pool = ctx.gasWallet.address;
  // Followed here to their end: a taking back is out of the chain's delegation index as soon as it is in a block.
  for (const row of await ctx.prisma.transaction.findMany({ where: { sendPurpose: { in: ['POOL_STAKE', 'ENERGY_RECLAIM'] }, sendState: { in: ['SIGNED', 'BROADCAST'] } } })) {
    await followSend(ctx, row);
  }
  for (const receiver of await ctx.chain.getDelegationReceivers(pool)) {
    const busy = await ctx.prisma.transaction.count({
      where: {
        OR: [
          { sendState: { in: ['SIGNED', 'BROADCAST'] }, OR: [{ fromAddress: receiver }, { toAddress: receiver, sendPurpose: { not: 'ENERGY_RECLAIM' } }] },
          { type: 'PAYMENT', toAddress: receiver, paymentState: { in: [...OPEN_PAYMENT_STATES] } },
          // A payout still paying its targets may send another wave.
          { type: 'TOPUP', toAddress: receiver, invoice: { type: 'MULTIPLE_TRANSFER', status: 'ACTIVE' } },
        ],
      },
    });
    if (busy > 0) continue;
    const lent = await ctx.chain.getDelegatedSun(pool, receiver);
    for (const resource of (['ENERGY', 'BANDWIDTH'] as const).filter((r) => lent[r] > 0n)) {
      const lending = await ctx.prisma.transaction.findFirst({ where: { type: 'DELEGATE', toAddress: receiver, resource, sendState: 'CONFIRMED' }, orderBy: { id: 'desc' } });
      const anchor = lending?.sourceId ? await ctx.prisma.transaction.findUnique({ where: { id: lending.sourceId } }) : null;
      if (!lending || !anchor) {
        console.error(`ALERT the pool has ${resource} stake delegated to ${receiver} that no lending of the service explains; left as it is`);
        continue;
      }
      // One taking back per lending (index = its row); the other resource's waits for it (one pool operation in flight per address).
      const outcome = await ensureSend(ctx, anchor, { purpose: 'ENERGY_RECLAIM', index: lending.id }, async () => {
        const now = (await ctx.chain.getDelegatedSun(pool, receiver))[resource];
        if (now <= 0n) return null;
        return {
          type: 'UNDELEGATE',
          from: pool,
          to: receiver,
          amountUnits: 0n,
          currency: 'TRX',
          costPayer: lending.costPayer ?? 'SERVICE',
          signed: await ctx.chain.buildSignedResourceOp(ctx.gasWallet.privateKey, { kind: 'undelegate', resource, receiver, amountSun: now }),
          energy: { energySource: 'POOL', stakeSun: now, resource },
        };
      });
      if (outcome.state === 'exhausted') console.error(`ALERT ${resource} lent to ${receiver} not taken back: ${outcome.error}`);
    }
  }
}
