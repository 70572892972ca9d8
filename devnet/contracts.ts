import { TronWeb, utils } from 'tronweb';
import type { AccountView } from './ledger';
import { addressArg, addressWord, revert, TRANSFER_TOPIC, TRC20_TRANSFER_SELECTOR, tokenView, transferFrom, word, type CallOutcome, type Log } from './usdt';

/**
 * Contracts the devnet runs beside Tether's USDT (devnet/usdt.ts), so that money arrives the ways it
 * does on mainnet (issue 37; docs/devnet.md, "Payments through contracts"):
 *
 * - **The payer contract**, a smart-contract wallet or batch sender: `payTrx(address to, bool
 *   rejectInner)` sends the TRX it is called with (call_value) on to `to` as an internal transaction;
 *   with `rejectInner` its inner call reverts and is caught (the outer call succeeds, the internal
 *   transaction is `rejected`, the TRX stays with the contract): the "fake deposit" shape of 2024.
 *   `payUsdt(address to, uint256 amount)` moves the caller's USDT with the USDT contract's
 *   transferFrom (the Transfer event is the USDT contract's; the transaction's contract is this one).
 * - **A look-alike token**: a TRC-20 contract whose name, symbol and decimals are Tether's
 *   ("Tether USD", "USDT", 6); `transfer(to, amount)` emits a Transfer event from the caller to `to`
 *   and moves nothing (it keeps no balances; balanceOf answers 0), as the scam tokens sent to
 *   deposit addresses every day do.
 *
 * Both run natively, like USDT; energy is close to what such contracts use, not measured on mainnet.
 */

/** A fixed address for a devnet contract (41-hex): the same on every devnet, so a data directory needs nothing new. */
function fixedAddress(label: string): string {
  return '41' + utils.ethersUtils.keccak256(utils.ethersUtils.toUtf8Bytes(`devnet contract: ${label}`)).slice(-40);
}

export const PAYER_CONTRACT = fixedAddress('payer');
export const FAKE_USDT_CONTRACT = fixedAddress('look-alike USDT');

const selector = (signature: string) => utils.ethersUtils.keccak256(utils.ethersUtils.toUtf8Bytes(signature)).slice(2, 10);
export const PAYER_FUNCTIONS = { payTrx: 'payTrx(address,bool)', payUsdt: 'payUsdt(address,uint256)' } as const;
/** The payer's function selectors: what a call's data starts with (devnet/traffic.ts calls payTrx too). */
export const PAYER_SELECTORS = { payTrx: selector(PAYER_FUNCTIONS.payTrx), payUsdt: selector(PAYER_FUNCTIONS.payUsdt) } as const;
const PAY_TRX = PAYER_SELECTORS.payTrx;
const PAY_USDT = PAYER_SELECTORS.payUsdt;
const BALANCE_OF = '70a08231';

/** A CALL carrying TRX, and what the TVM adds when that call creates the recipient's account (java-tron's NEW_ACCT_CALL). */
const PAY_TRX_ENERGY = 9_700n;
const NEW_ACCOUNT_CALL_ENERGY = 25_000n;
/** The payer's own work around the USDT contract's transferFrom. */
const PAY_USDT_OVERHEAD_ENERGY = 4_500n;
/** A look-alike token's transfer: one event, no storage. */
const FAKE_TRANSFER_ENERGY = 3_200n;

export type DevnetContract = 'USDT' | 'PAYER' | 'FAKE_USDT';

const ZERO = '41' + '0'.repeat(40);

/** The payer contract's calls. Pure: the node applies what the outcome says (TRX of internal calls, USDT of `transfer`). */
export function callPayer(state: AccountView, payer: string, usdtContract: string, caller: string, data: string, callValue: bigint): CallOutcome {
  const args = data.slice(8);
  switch (data.slice(0, 8)) {
    case PAY_TRX: {
      if (args.length !== 128) return revert();
      const to = addressArg(args.slice(0, 64));
      const rejectInner = BigInt('0x' + args.slice(64)) !== 0n;
      if (!to || to === ZERO || callValue <= 0n) return revert();
      const creates = state.get(to).createTime === null && !rejectInner;
      return {
        ok: true,
        energy: PAY_TRX_ENERGY + (creates ? NEW_ACCOUNT_CALL_ENERGY : 0n),
        returnData: '',
        logs: [],
        transfer: null,
        internal: [{ from: payer, to, callValue, rejected: rejectInner }],
      };
    }
    case PAY_USDT: {
      if (args.length !== 128 || callValue > 0n) return revert();
      const to = addressArg(args.slice(0, 64));
      if (!to) return revert();
      const moved = transferFrom(state, usdtContract, caller, to, BigInt('0x' + args.slice(64)));
      if (!moved.ok) return revert();
      return { ...moved, energy: moved.energy + PAY_USDT_OVERHEAD_ENERGY, returnData: '', internal: [{ from: payer, to: usdtContract, callValue: 0n, rejected: false }] };
    }
    default:
      return revert();
  }
}

/** The look-alike token's calls: Tether's views and a transfer that only emits its event. */
export function callFakeToken(contract: string, caller: string, data: string, callValue: bigint): CallOutcome {
  if (callValue > 0n) return revert();
  const args = data.slice(8);
  const selectorHex = data.slice(0, 8);
  if (selectorHex === TRC20_TRANSFER_SELECTOR) {
    const to = args.length === 128 ? addressArg(args.slice(0, 64)) : null;
    if (!to || to === ZERO) return revert();
    const log: Log = { address: contract.slice(2), topics: [TRANSFER_TOPIC, addressWord(caller), addressWord(to)], data: args.slice(64) };
    return { ok: true, energy: FAKE_TRANSFER_ENERGY, returnData: word(1n), logs: [log], transfer: null };
  }
  if (selectorHex === BALANCE_OF) return args.length === 64 && addressArg(args) ? { ok: true, energy: 500n, returnData: word(0n), logs: [], transfer: null } : revert();
  return tokenView(data) ?? revert();
}

/** wallet/getcontract for the payer and the look-alike token: enough for `isContract` and `tronWeb.contract().at(address)`. */
export function extraContractDescriptor(contract: string, origin: string): Record<string, unknown> {
  const fn = (name: string, inputs: Array<[string, string]>, outputs: string[], stateMutability: string) => ({
    ...(stateMutability === 'View' ? { constant: true } : {}),
    ...(stateMutability === 'Payable' ? { payable: true } : {}),
    inputs: inputs.map(([n, type]) => ({ name: n, type })),
    name,
    outputs: outputs.map((type) => ({ type })),
    stateMutability,
    type: 'Function',
  });
  const payer = contract === PAYER_CONTRACT;
  return {
    origin_address: TronWeb.address.toHex(origin).toLowerCase(),
    contract_address: contract,
    abi: {
      entrys: payer
        ? [fn('payTrx', [['to', 'address'], ['rejectInner', 'bool']], [], 'Payable'), fn('payUsdt', [['to', 'address'], ['amount', 'uint256']], [], 'Nonpayable')]
        : [
            fn('name', [], ['string'], 'View'),
            fn('symbol', [], ['string'], 'View'),
            fn('decimals', [], ['uint8'], 'View'),
            fn('balanceOf', [['who', 'address']], ['uint256'], 'View'),
            fn('transfer', [['_to', 'address'], ['_value', 'uint256']], ['bool'], 'Nonpayable'),
          ],
    },
    name: payer ? 'BatchPayer' : 'TetherToken',
    consume_user_resource_percent: 100,
  };
}
