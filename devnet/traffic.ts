import { randomBytes, randomInt } from 'node:crypto';
import { utils } from 'tronweb';
import { DEVNET_TRAFFIC_DEFAULT_USDT_SHARE } from '@/lib/config';
import { PAYER_CONTRACT, PAYER_SELECTORS, FAKE_USDT_CONTRACT } from './contracts';
import type { ContractCall } from './transaction';
import { addressWord, TRC20_TRANSFER_SELECTOR, word } from './usdt';

/**
 * Mainnet-shaped traffic (issue 37; docs/devnet.md, "Traffic"): mainnet carries about 300
 * transactions in every 3-second block, most of them USDT transfers, so every block a scanner reads
 * brings that many transactions and their receipts. With traffic on, the devnet fills each block it
 * makes with `txPerBlock` transactions among its own traffic accounts, never the service's:
 *
 * - a `usdtShare` of them (rounded) USDT `transfer` calls (receipts with a Transfer log, energy
 *   burned), every twentieth for more than the sender holds, which reverts as on mainnet (a failed
 *   transaction);
 * - of the rest, every tenth a call of the payer contract that sends TRX on as an internal
 *   transaction, every twentieth (counting from the nineteenth) a look-alike "Tether USD" transfer
 *   (an event, nothing moved), the others TRX transfers.
 *
 * The mix is exact, so a test can count it; senders, recipients, amounts and the order in the block
 * are random.
 *
 * The traffic accounts are funded by the node itself (as POST /devnet/set-balance would, so a
 * restart or a reorganisation replays it) the first time traffic starts. Their transactions are
 * executed by the node without passing broadcast (devnet/transaction.ts, selfSigned).
 */

export interface TrafficSettings {
  /** Transactions added to each block; 0: none. */
  txPerBlock: number;
  /** The share of them that are USDT transfers, 0 to 1. */
  usdtShare: number;
}

export const NO_TRAFFIC: TrafficSettings = { txPerBlock: 0, usdtShare: DEVNET_TRAFFIC_DEFAULT_USDT_SHARE };

/** How many accounts the traffic moves money among. */
export const TRAFFIC_ACCOUNTS = 400;
/** Each traffic account's funding: far more than the traffic moves or burns in a long benchmark. */
export const TRAFFIC_FUNDING_SUN = 10_000_000_000_000n;
export const TRAFFIC_FUNDING_USDT_UNITS = 10_000_000_000_000n;

/** The traffic's accounts (41-hex): fixed addresses no key belongs to, the same on every devnet. */
export const trafficAccounts: readonly string[] = Array.from(
  { length: TRAFFIC_ACCOUNTS },
  (_, i) => '41' + utils.ethersUtils.keccak256(utils.ethersUtils.toUtf8Bytes(`devnet traffic account ${i}`)).slice(-40),
);

const PAY_TRX = PAYER_SELECTORS.payTrx;

const pick = () => trafficAccounts[randomInt(TRAFFIC_ACCOUNTS)]!;
/** Two different traffic accounts. */
function pair(): [string, string] {
  const from = pick();
  let to = pick();
  while (to === from) to = pick();
  return [from, to];
}

/** One block's traffic: the calls, in the mix described above. `usdtOf` is a sender's USDT now (for the one-in-twenty failure). */
export function trafficCalls(settings: TrafficSettings, usdtContract: string, usdtOf: (address: string) => bigint): ContractCall[] {
  const calls: ContractCall[] = [];
  const usdtCalls = Math.round(settings.txPerBlock * settings.usdtShare);
  for (let i = 0; i < settings.txPerBlock; i++) {
    const [owner, to] = pair();
    if (i < usdtCalls) {
      const amount = BigInt(randomInt(1, 5_000) * 1_000_000 + randomInt(1_000_000));
      // Ten million USDT more than the sender holds: more than the block's other transfers could bring it.
      const units = i % 20 === 19 ? usdtOf(owner) + 10_000_000_000_000n : amount;
      calls.push({ type: 'TriggerSmartContract', owner, contract: usdtContract, data: TRC20_TRANSFER_SELECTOR + addressWord(to) + word(units), callValue: 0n });
      continue;
    }
    const j = i - usdtCalls;
    const sun = BigInt(randomInt(100_000, 1_000_000_000));
    if (j % 10 === 9) calls.push({ type: 'TriggerSmartContract', owner, contract: PAYER_CONTRACT, data: PAY_TRX + addressWord(to) + word(0n), callValue: sun });
    else if (j % 20 === 18) calls.push({ type: 'TriggerSmartContract', owner, contract: FAKE_USDT_CONTRACT, data: TRC20_TRANSFER_SELECTOR + addressWord(to) + word(sun), callValue: 0n });
    else calls.push({ type: 'TransferContract', owner, to, amount: sun });
  }
  // Mixed through the block, as on mainnet (Fisher-Yates).
  for (let i = calls.length - 1; i > 0; i--) {
    const k = randomInt(i + 1);
    [calls[i], calls[k]] = [calls[k]!, calls[i]!];
  }
  return calls;
}

/** A stand-in signature: 65 random bytes, as long as a real one (devnet/transaction.ts, selfSigned). */
export const standInSignature = () => randomBytes(65).toString('hex');
