import type { CostPayer } from '@/lib/generated/prisma/client';
import { queryRows, sql } from '@/lib/db/sql';
import { singleton } from '@/lib/singletons';
import type { WorkerContext } from '@/lib/worker/context';
import { ensureSend, type Anchor, type SendOptions, type SendOutcome, type SendStep } from './steps';

/** What reading an address's TRX needs: the books and the chain, in the worker or the web app. */
type ChainAndBooks = Pick<WorkerContext, 'prisma' | 'chain'>;

/**
 * The gas at `address`, from the ledger: the TRX the gas wallet sent there for sends (GAS_IN),
 * less what went back to it (GAS_RETURN_OUT) and what the sends that gas pays for burned there
 * (the NETWORK_COST of USDT sends, and of gas returns, which pay their fee out of the gas they
 * return). A TRX send's cost is taken out of the TRX it moves, so it is not gas.
 */
async function gasBooked(ctx: ChainAndBooks, address: string): Promise<bigint> {
  const [row] = await queryRows<{ gas: bigint }>(ctx.prisma, sql`
    SELECT COALESCE(SUM(e.delta_units), 0)::bigint AS gas
    FROM ledger_entries e LEFT JOIN transactions s ON s.id = e.transaction_id
    WHERE e.address = ${address} AND e.currency = 'TRX'
      AND (e.kind IN ('GAS_IN', 'GAS_RETURN_OUT') OR (e.kind = 'NETWORK_COST' AND (s.currency = 'USDT' OR s.send_purpose = 'GAS_RETURN')))`);
  return row?.gas ?? 0n;
}

/** What the chain and the ledger say of the TRX at `address`, and the part of the ledger's that is gas. */
async function trxAt(ctx: ChainAndBooks, address: string): Promise<{ chainSun: bigint; gasSun: bigint; notGasSun: bigint }> {
  const [chainSun, ledger, gasSun] = await Promise.all([
    ctx.chain.getTrxBalance(address),
    ctx.prisma.ledgerEntry.aggregate({ where: { address, currency: 'TRX' }, _sum: { deltaUnits: true } }),
    gasBooked(ctx, address),
  ]);
  return { chainSun, gasSun, notGasSun: (ledger._sum.deltaUnits ?? 0n) - gasSun };
}

/**
 * TRX at `address` that a send may burn: only gas, what the gas wallet sent there for sends and
 * they have not burned (issue 22, case 1). The merchant's or a customer's TRX at the address
 * (a payment, a payout top-up sent in TRX by mistake, a fee kept, held funds) is never gas: it is
 * the rest of the ledger's balance there, and it is taken off what the chain holds, so a burn not
 * booked yet (a send in flight) lowers the gas, never their TRX, and TRX the scanner has not
 * recorded yet is never counted.
 */
export async function spendableTrx(ctx: WorkerContext, address: string): Promise<bigint> {
  const { chainSun, gasSun, notGasSun } = await trxAt(ctx, address);
  const onChainForGas = chainSun - notGasSun;
  const gas = onChainForGas < gasSun ? onChainForGas : gasSun;
  if (gas >= 0n) return gas;
  alertNegativeGas(address, -gas, chainSun, notGasSun, gasSun);
  // Nothing there is gas. Counted as less than none, a step that needs none would build a 0-sun
  // transfer (refused, "Invalid amount provided", every round: the payment wedged; issue 35).
  return 0n;
}

/**
 * Gas below zero means the address lost TRX that was not gas: a send burned more than the gas sent
 * there (a send that executed on a branch without the energy it relied on, issue 35, case 1), or the
 * TRX left otherwise. Said once per address and shortfall (per worker process), not every round.
 */
function alertNegativeGas(address: string, shortSun: bigint, chainSun: bigint, notGasSun: bigint, gasSun: bigint): void {
  const alerted = singleton('negativeGasAlerted', () => new Map<string, bigint>());
  if (alerted.get(address) === shortSun) return;
  alerted.set(address, shortSun);
  console.error(
    `ALERT gas at ${address} is negative by ${shortSun} sun: the chain holds ${chainSun} sun there, the ledger books ${notGasSun} sun of payments, held funds and fees kept and ${gasSun} sun of gas; ` +
      'TRX that was not gas was burned or taken there. No gas is counted at the address: sends that need none go on, gas sent for one that does makes the shortfall good first. ' +
      '`npm run reconcile` names the held amounts and fees kept it does not find there.',
  );
}

/**
 * TRX at `address` that is not gas: the merchant's or customers' (the rest of the ledger's
 * balance there), never more than the chain holds beside the gas. A payout's return sends it
 * back (lib/payouts/returns.ts); the web app reads it too, to refuse a return with nothing worth sending.
 */
export async function trxNotGas(ctx: ChainAndBooks, address: string): Promise<bigint> {
  const { chainSun, gasSun, notGasSun } = await trxAt(ctx, address);
  const onChain = chainSun - (gasSun > 0n ? gasSun : 0n);
  return notGasSun < onChain ? notGasSun : onChain;
}

/**
 * The one gas step, shared by payments and payouts: before a USDT send from
 * `address`, the service gas wallet tops the address up to `needSun` (the
 * estimated burn with GAS_MARGIN_PERCENT) with an ACTIVATION transaction.
 * Keyed by the attempt it funds, so a send that failed on chain gets fresh gas
 * and a landed send never gets more. With `topUp`, gas that arrived for the
 * attempt is checked against `needSun` again each time it is asked (the price
 * may have risen since): short, it is topped up for the same attempt (a new
 * send of the step); the caller asks only while the send it funds is not out.
 */
export function ensureGas(
  ctx: WorkerContext,
  anchor: Anchor,
  step: SendStep,
  address: string,
  needSun: () => Promise<bigint>,
  costPayer: CostPayer,
  options: Pick<SendOptions, 'topUp' | 'landed'> & { energySource?: 'POOL' | 'RENTAL' | 'BURN' } = {},
): Promise<SendOutcome> {
  return ensureSend(ctx, anchor, step, async (refBlock) => {
    const need = await needSun();
    const have = await spendableTrx(ctx, address);
    if (have >= need) return null;
    const amount = need - have;
    return {
      type: 'ACTIVATION',
      from: ctx.gasWallet.address,
      to: address,
      amountUnits: amount,
      currency: 'TRX',
      costPayer,
      signed: await ctx.chain.buildSignedTrxTransfer(ctx.gasWallet.privateKey, address, amount, refBlock),
      // Which energy source the attempt this gas funds uses (lib/energy/engine.ts keeps the choice per attempt).
      ...(options.energySource && { energy: { energySource: options.energySource } }),
    };
  }, { topUp: options.topUp, landed: options.landed });
}
