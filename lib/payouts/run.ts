import { budgetOf } from '@/lib/chain/costs';
import { invoiceAccount } from '@/lib/merchants/accounts';
import type { InvoiceStatus, PayoutTarget as TargetRow, PayoutTargetState, Transaction } from '@/lib/generated/prisma/client';
import { sql } from '@/lib/db/sql';
import { changeInvoiceStatus } from '@/lib/invoices/transitions';
import { energyShort, sharedEnergy } from '@/lib/energy/engine';
import { arrangeWave } from '@/lib/energy/waves';
import { feeLimitSun, type SendPlan } from '@/lib/energy/plan';
import { extendLease, workThrough } from '@/lib/worker/lease';
import { tokenAmountJson, type Currency } from '@/lib/money/tokens';
import type { WorkerContext } from '@/lib/worker/context';
import { ensureSend, exhausted, followOut, type SendOutcome } from '@/lib/sends/steps';
import { scannedUntil } from '@/lib/payments/scan';
import type { BatchCost } from '@/lib/chain/types';
import { estimateTransfers } from './estimate';
import type { FailedTargetJson } from '@/lib/invoices/storedTargets';
import { loadPayout, targetsOf, type Payout } from './load';
import { advanceReturn } from './returns';
import { changeTargetState } from './targets';
import { topUpsWhere } from '@/lib/invoices/topUps';

type Failure = Pick<FailedTargetJson, 'index' | 'error'>;

/** Sends driven at once; each is a few node calls and a row. */
const PARALLEL_SENDS = 16;

// `to`: the target's address, so that a send to an account made by a transfer not final yet is bound to that transfer's block (bindingBlock).
const targetStep = (i: number, to: string) => ({ purpose: 'PAYOUT_TARGET', index: i, to }) as const;
const attemptOfLatest = (row: Transaction | undefined) => row?.sendAttempt ?? 0;

/**
 * Works through open payouts, then returns the merchants asked for (lib/payouts/returns.ts):
 * each is advanced as far as the chain allows, then released (lib/worker/lease.ts).
 */
export async function processPayouts(ctx: WorkerContext, max = 20): Promise<number> {
  const guarded = (step: (ctx: WorkerContext, id: number) => Promise<number | void>) => async (id: number) => {
    try {
      return await step(ctx, id);
    } catch (err) {
      console.error(`payout ${id}: ${(err as Error).message}`);
    }
  };
  const paying = await workThrough(ctx, 'invoices', sql`type = 'MULTIPLE_TRANSFER' AND status = 'ACTIVE'`, max, guarded(advancePayout));
  // Returns asked for are few (payout_returns, migration 0056): the claim reads them, not every invoice.
  const returning = await workThrough(ctx, 'invoices', sql`id IN (SELECT invoice_id FROM payout_returns WHERE returned_at IS NULL)`, max, guarded(advanceReturn));
  return paying + returning;
}

/**
 * Moves targets through the one door (lib/payouts/targets.ts), in one DB transaction, and keeps
 * the payout's rows in step with what was written. A target still PENDING whose send confirmed
 * passes through SENDING, as the table says. A target another worker moved meanwhile (its lease
 * ran out while this one was still working) is read again and taken from where it is.
 */
async function moveTargets(ctx: WorkerContext, payout: Payout, moves: { index: number; to: PayoutTargetState; error?: string }[]): Promise<void> {
  const rows = new Map(payout.payoutTargets.map((t) => [t.index, t]));
  const due = moves.filter((m) => rows.has(m.index) && rows.get(m.index)!.state !== m.to);
  if (due.length === 0) return;
  await ctx.prisma.$transaction(async (tx) => {
    const move = async (row: TargetRow, to: PayoutTargetState, error?: string) => {
      for (let tries = 0; tries < 2 && row.state !== to; tries++) {
        if (await changeTargetState(tx, row, to, { error })) row.state = to;
        else row.state = (await tx.payoutTarget.findUniqueOrThrow({ where: { invoiceId_index: { invoiceId: row.invoiceId, index: row.index } } })).state;
      }
    };
    for (const m of due) {
      const row = rows.get(m.index)!;
      if (row.state === 'PENDING' && m.to === 'PAID') await move(row, 'SENDING');
      await move(row, m.to, m.error);
    }
  });
}

/**
 * One step of a payout. The top-ups (TOPUP rows the scanner recorded, in the
 * payout's token) are counted; once they reach the quoted amount every target
 * is paid, each through `ensureSend` (stored before broadcast, rebuilt only
 * when provably dead). The first top-up anchors the sends' keys
 * (`<topup id>:target-<i>:<attempt>`), so a target can never be paid twice.
 */
async function advancePayout(ctx: WorkerContext, id: number): Promise<void> {
  const payout = await loadPayout(ctx, id);
  const due = payout.amounts[0];
  if (!due) throw new Error('payout without amounts');
  const topups = await ctx.prisma.transaction.findMany({ where: topUpsWhere(id, due.currency), orderBy: { id: 'asc' } });
  const received = topups.reduce((sum, t) => sum + t.amountUnits, 0n);
  const anchor = topups[0];
  const sends = anchor ? await ctx.prisma.transaction.findMany({ where: { sourceId: anchor.id }, orderBy: { id: 'asc' } }) : [];
  if (sends.length === 0 && received < due.dueUnits) {
    // Not started and not enough: wait, or give up at expiry. The top-up stays at the address (docs/payouts.md).
    if (payout.expiredAt <= (await scannedUntil(ctx.prisma))) await finish(ctx, payout, 'TIMEOUT', received, 0n, []);
    else if (received !== due.receivedUnits) await book(ctx, payout, received, 0n);
    return;
  }
  await payTargets(ctx, payout, anchor!, received, sends);
}

async function payTargets(ctx: WorkerContext, payout: Payout, anchor: Transaction, received: bigint, sends: Transaction[]): Promise<void> {
  const targets = targetsOf(payout);
  const currency = payout.currencies[0] as Currency;
  const { privateKey } = invoiceAccount(payout);
  // Each target's latest send, by the target's index. Ordered by id: the last attempt wins.
  const latest = new Map<number, Transaction>();
  for (const row of sends) if (row.sendPurpose === 'PAYOUT_TARGET' && row.sendIndex !== null) latest.set(row.sendIndex, row);
  const latestGas = (wave: number) => sends.find((r) => r.sendPurpose === 'PAYOUT_GAS' && r.sendIndex === wave);

  const confirmed = new Map<number, Transaction>();
  const failures: Failure[] = [];
  const inFlight: number[] = [];
  const toBuild: number[] = [];
  for (const i of targets.keys()) {
    const row = latest.get(i);
    if (row?.sendState === 'CONFIRMED') confirmed.set(i, row);
    else if (row && row.sendState !== 'FAILED') inFlight.push(i);
    else {
      // The payments' rule (exhausted, lib/sends/steps.ts): only sends that landed and failed, or were
      // refused for good, count against SEND_MAX_ATTEMPTS; one dropped or expired unsent is rebuilt (issue 22, case 4).
      const spent = row ? await exhausted(ctx, anchor, targetStep(i, targets[i]!.address)) : null;
      if (spent) failures.push({ index: i, error: spent.error });
      else toBuild.push(i);
    }
  }

  // USDT: the temporary address needs TRX for energy and bandwidth. One gas send
  // per wave of new attempts, planned only while no send is in flight, so that
  // the balance it tops up to is exact.
  // One estimate per round, shared by the gas plan and every send's fee_limit (the promise is kept, so parallel sends wait for the same one).
  // Costed as if the address held no energy: energy an earlier wave left there is not counted on (it may be
  // taken back), and a call's energy is capped at fee_limit / price, its own included, so a burning wave's
  // fee_limit and gas carry the whole energy's burn (what is there only lowers what is burned).
  let estimate: Promise<BatchCost> | undefined;
  const estimateToBuild = () =>
    (estimate ??= ctx.chain.getAccountResources(payout.address).then((resources) =>
      estimateTransfers(ctx.chain, toBuild.map((i) => ({ token: currency, from: payout.address, to: targets[i]!.address, amount: targets[i]!.units })), { ...budgetOf(resources), stakedEnergy: 0n }),
    ));
  const buildOrder = new Map(toBuild.map((i, k) => [i, k]));
  let buildable = toBuild;
  // The wave's plan (lib/energy/waves.ts): its sends' energy source, fee_limit and check before broadcast follow it.
  let plan: Pick<SendPlan, 'source' | 'feeLimit'> = { source: 'BURN', feeLimit: 'BURN' };
  // Nothing can leave an address the USDT contract has frozen (issue 37): a wave from it would only burn its energy.
  if (currency === 'USDT' && toBuild.length > 0 && (await ctx.chain.isUsdtFrozen(payout.address))) {
    for (const i of toBuild) failures.push({ index: i, error: `frozen: the USDT contract has frozen ${payout.address}, the payout's address (Tether's blacklist); nothing can leave it` });
    buildable = [];
  } else if (currency === 'USDT' && toBuild.length > 0) {
    const wave = Math.max(...toBuild.map((i) => attemptOfLatest(latest.get(i)) + 1));
    if (!latestGas(wave) && inFlight.length > 0) buildable = [];
    else {
      const ready = await arrangeWave(ctx, anchor, wave, payout.address, payout.quotedEnergySource, estimateToBuild);
      if (ready.state === 'ready') plan = ready.plan;
      else if (ready.state === 'exhausted') {
        for (const i of toBuild) failures.push({ index: i, error: ready.error });
        buildable = [];
      } else buildable = [];
    }
  }
  // The wave's energy at the address, shared by the round's parallel sends: each takes its part before broadcast.
  const share = sharedEnergy(ctx, payout.address);

  const drive = async (i: number): Promise<SendOutcome> => {
    const t = targets[i]!;
    // A target the USDT contract froze after the payout was created (creation refuses one frozen then): USDT sent there
    // could never be moved again, so it is not sent; the target fails with the reason and its USDT stays for a return.
    if (currency === 'USDT' && buildOrder.has(i) && (await ctx.chain.isUsdtFrozen(t.address))) {
      return { state: 'exhausted', refused: true, error: `frozen: ${t.address} is frozen by the USDT contract (Tether's blacklist); USDT sent there could never be moved` };
    }
    // refBlock: the newest block of the wave's activation or lending while not final (issue 24), else the head.
    return ensureSend(ctx, anchor, targetStep(i, t.address), async (refBlock) => {
      if (currency === 'TRX') {
        // A TRX send to an address that is no account yet burns its creation (1.1 TRX) from the payout's TRX. It says so, so that
        // a forward to the same fresh address (a merchant's wallet paid by a payout) is not costed with the same creation meanwhile:
        // of two sends in flight to one new account only one pays it, and a forward deducts what it will burn (migration 0092).
        const createsAccount = !(await ctx.chain.isActivated(t.address));
        const signed = await ctx.chain.buildSignedTrxTransfer(privateKey, t.address, t.units, refBlock);
        return { type: 'TRANSFER', from: payout.address, to: t.address, amountUnits: t.units, currency, costPayer: 'PAYOUT', signed, createsAccount };
      }
      // A send found dead during this round waits for the next wave's gas.
      const k = buildOrder.get(i);
      if (k === undefined) return null;
      const cost = (await estimateToBuild()).transfers[k]!;
      // Paid with lent or rented energy, a send burns nothing for energy, but a call's energy is capped at fee_limit / price,
      // its own included: its fee_limit pays for the energy lent for it (its estimate with ENERGY_MARGIN_PERCENT), all of
      // which the wave's lending or rental put at the address, so it can burn no TRX (lib/energy/engine.ts, energyShort).
      const signed = await ctx.chain.buildSignedUsdtTransfer(privateKey, t.address, t.units, await feeLimitSun(ctx, plan.feeLimit, cost), refBlock);
      return { type: 'TRANSFER', from: payout.address, to: t.address, amountUnits: t.units, currency, costPayer: 'PAYOUT', signed, energy: { energySource: plan.source, energyUnits: cost.energy } };
    }, { beforeBroadcast: (row) => (row.energySource === 'POOL' || row.energySource === 'RENTAL' ? energyShort(ctx, row, share) : Promise.resolve(null)) });
  };
  const work = [...inFlight, ...buildable];
  // A target's send step starts before its send is stored, so no send exists for a PENDING target.
  await moveTargets(ctx, payout, work.map((index) => ({ index, to: 'SENDING' })));
  for (let k = 0; k < work.length; k += PARALLEL_SENDS) {
    const chunk = work.slice(k, k + PARALLEL_SENDS);
    const outcomes = await Promise.all(chunk.map(drive));
    outcomes.forEach((o, j) => {
      const i = chunk[j]!;
      if (o.state === 'confirmed') confirmed.set(i, o.row);
      else if (o.state === 'exhausted') failures.push({ index: i, error: o.error });
    });
    await extendLease(ctx, 'invoices', payout.id);
  }

  // Exhausted targets have no send in flight (the door checks it again).
  await moveTargets(ctx, payout, [...[...confirmed.keys()].map((index) => ({ index, to: 'PAID' as const })), ...failures.map((f) => ({ index: f.index, to: 'FAILED' as const, error: f.error }))]);
  const sent = [...confirmed.values()].reduce((sum, row) => sum + row.amountUnits, 0n);
  // Every target ended; the wave's activation and lending, out before the sends (issue 24), are followed
  // to their end and booked before the payout ends, as nothing follows them once it has.
  if (confirmed.size + failures.length < targets.length || (await followOut(ctx, anchor)).out > 0) {
    await book(ctx, payout, received, sent);
    return;
  }
  const failed: FailedTargetJson[] = failures
    .sort((a, b) => a.index - b.index)
    .map((f) => ({ index: f.index, address: targets[f.index]!.address, amount: tokenAmountJson(targets[f.index]!.units), error: f.error }));
  await finish(ctx, payout, failed.length ? 'ERROR' : 'COMPLETED', received, sent, failed);
}

/**
 * Shows progress: `transfer_amounts.input` is the top-up so far, `output` what has been sent. Written only
 * while this worker still holds the payout and it is open: a worker paused past its lease (a stalled host)
 * goes on with what it knew then, and must not write it over the books of the payout another worker has
 * taken over, or finished meanwhile (reconcile found `output` 0 for a COMPLETED payout).
 */
async function book(ctx: WorkerContext, payout: Payout, received: bigint, sent: bigint): Promise<void> {
  await ctx.prisma.invoiceCurrency.updateMany({
    where: { invoiceId: payout.id, invoice: { is: { status: 'ACTIVE', leaseOwner: ctx.owner } } },
    data: { receivedUnits: received, forwardedUnits: sent },
  });
}

/**
 * Ends a payout: its status, what was sent, its cost (the quoted fee: service
 * fee, network fee with margin and activation) and the failed targets, with the
 * webhook queued in the same DB transaction.
 */
async function finish(ctx: WorkerContext, payout: Payout, status: InvoiceStatus, received: bigint, sent: bigint, failed: FailedTargetJson[]): Promise<void> {
  const due = payout.amounts[0]!;
  await ctx.prisma.$transaction(async (tx) => {
    const changed = await changeInvoiceStatus(tx, payout, status, {
      where: { leaseOwner: ctx.owner },
      data: status !== 'TIMEOUT' ? { costUnits: due.feeUnits, costCurrency: due.currency, failedTargets: failed } : {},
    });
    if (!changed) return;
    await tx.invoiceCurrency.updateMany({ where: { invoiceId: payout.id }, data: { receivedUnits: received, forwardedUnits: sent } });
  });
}
