import { TronWeb } from 'tronweb';
import type { AccountView } from './ledger';
import { param, USDT_REFERENCE_FACTOR } from './params';

/**
 * The devnet's TRC-20 USDT, executed natively instead of by a TVM: the
 * selectors, return encodings, Transfer log and energy figures are those of
 * Tether's contract on mainnet.
 */

const USDT_NAME = 'Tether USD';
const USDT_SYMBOL = 'USDT';
const USDT_DECIMALS = 6n;
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

const SELECTOR = {
  transfer: 'a9059cbb',
  balanceOf: '70a08231',
  decimals: '313ce567',
  symbol: '95d89b41',
  name: '06fdde03',
  totalSupply: '18160ddd',
  isBlackListed: 'e47d6060',
  getBlackListStatus: '59bf1abe',
} as const;

/** A TVM log as a node reports it: contract address without the 41 prefix, hex without 0x. */
export interface Log {
  address: string;
  topics: string[];
  data: string;
}

/**
 * A call one contract makes to another address inside a transaction (java-tron's InternalTransaction):
 * TRX (`callValue`) sent by a contract, or a call to another contract (callValue 0). The node rejects
 * it (`rejected`) when that inner call reverted, or when the whole transaction did.
 */
export interface InternalCall {
  from: string;
  to: string;
  callValue: bigint;
  rejected: boolean;
}

export interface CallOutcome {
  /** false: the call reverted. */
  ok: boolean;
  energy: bigint;
  returnData: string;
  logs: Log[];
  /** The USDT balance move a successful transfer() or transferFrom() makes. */
  transfer: { from: string; to: string; amount: bigint } | null;
  /** Inner calls made by a contract (devnet/contracts.ts); those not rejected that carry TRX move it. */
  internal?: InternalCall[];
}

const word = (n: bigint) => n.toString(16).padStart(64, '0');
const addressWord = (hex41: string) => hex41.slice(2).padStart(64, '0');

function stringResult(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return word(32n) + word(BigInt(bytes.length)) + bytes.toString('hex').padEnd(Math.ceil(bytes.length / 32) * 64, '0');
}

/**
 * Energy at the contract's current dynamic energy factor: the parameter rows
 * are measured at mainnet's factor (USDT_REFERENCE_FACTOR), and java-tron
 * bills base x (1 + factor / 10,000).
 */
function usdtEnergy(atReferenceFactor: bigint): bigint {
  return (atReferenceFactor * (10_000n + param('usdtEnergyFactor'))) / (10_000n + USDT_REFERENCE_FACTOR);
}

/** What a reverting USDT call costs and returns. */
export const revert = (): CallOutcome => ({ ok: false, energy: usdtEnergy(param('usdtRevertEnergy')), returnData: '', logs: [], transfer: null });
const view = (returnData: string): CallOutcome => ({ ok: true, energy: usdtEnergy(param('usdtViewEnergy')), returnData, logs: [], transfer: null });

/** ABI address argument (32-byte word) to a 41-prefixed hex address. */
function addressArg(wordHex: string): string | null {
  if (!/^0{24}/.test(wordHex)) return null;
  return '41' + wordHex.slice(24);
}

export function callUsdt(state: AccountView, contract: string, caller: string, data: string, callValue: bigint): CallOutcome {
  if (callValue > 0n) return revert();
  const selector = data.slice(0, 8);
  const args = data.slice(8);
  switch (selector) {
    case SELECTOR.transfer: {
      if (args.length !== 128) return revert();
      const to = addressArg(args.slice(0, 64));
      // Tether's transfer: require(!isBlackListed[msg.sender]), then the same move as transferFrom's.
      return to ? transferFrom(state, contract, caller, to, BigInt('0x' + args.slice(64))) : revert();
    }
    case SELECTOR.balanceOf: {
      const owner = args.length === 64 ? addressArg(args) : null;
      return owner ? view(word(state.get(owner).usdt)) : revert();
    }
    case SELECTOR.isBlackListed:
    case SELECTOR.getBlackListStatus: {
      const who = args.length === 64 ? addressArg(args) : null;
      return who ? view(word(state.get(who).usdtFrozen ? 1n : 0n)) : revert();
    }
    case SELECTOR.totalSupply:
      return view(word(param('genesisFaucetUsdt')));
    default:
      return tokenView(data) ?? revert();
  }
}

/**
 * Tether's move of USDT from `from` to `to`: transfer() from the caller, and transferFrom(_from, _to,
 * _value) as the devnet's payer contract calls it (devnet/contracts.ts): the zero address refused,
 * require(!isBlackListed[_from]) (a frozen address can receive; nothing leaves it), the balance,
 * the Transfer log with the USDT contract's address. The devnet keeps no allowances: every holder
 * counts as having approved the payer contract.
 */
export function transferFrom(state: AccountView, contract: string, from: string, to: string, amount: bigint): CallOutcome {
  if (to === '41' + '0'.repeat(40)) return revert();
  if (state.get(from).usdtFrozen || state.get(from).usdt < amount) return revert();
  const energy = usdtEnergy(state.get(to).usdt > 0n || to === from ? param('usdtTransferEnergyToHolder') : param('usdtTransferEnergyToNewHolder'));
  const log: Log = { address: contract.slice(2), topics: [TRANSFER_TOPIC, addressWord(from), addressWord(to)], data: word(amount) };
  return { ok: true, energy, returnData: word(1n), logs: [log], transfer: { from, to, amount } };
}

/** A TRC-20 token's view calls (name, symbol, decimals) answered as Tether's contract answers them: the look-alike token copies them. */
export function tokenView(data: string): CallOutcome | null {
  switch (data.slice(0, 8)) {
    case SELECTOR.decimals:
      return view(word(USDT_DECIMALS));
    case SELECTOR.symbol:
      return view(stringResult(USDT_SYMBOL));
    case SELECTOR.name:
      return view(stringResult(USDT_NAME));
    default:
      return null;
  }
}

export const TRC20_TRANSFER_SELECTOR = SELECTOR.transfer;
export { addressArg, word, addressWord, TRANSFER_TOPIC };

/** wallet/getcontract: enough for `tronWeb.contract().at(address)`. */
export function contractDescriptor(contract: string, origin: string): Record<string, unknown> {
  const fn = (name: string, inputs: Array<[string, string]>, output: string, stateMutability: string) => ({
    ...(stateMutability === 'View' ? { constant: true } : {}),
    inputs: inputs.map(([n, type]) => ({ name: n, type })),
    name,
    outputs: [{ type: output }],
    stateMutability,
    type: 'Function',
  });
  return {
    origin_address: TronWeb.address.toHex(origin).toLowerCase(),
    contract_address: contract,
    abi: {
      entrys: [
        fn('name', [], 'string', 'View'),
        fn('symbol', [], 'string', 'View'),
        fn('decimals', [], 'uint8', 'View'),
        fn('totalSupply', [], 'uint256', 'View'),
        fn('balanceOf', [['who', 'address']], 'uint256', 'View'),
        fn('isBlackListed', [['', 'address']], 'bool', 'View'),
        fn('getBlackListStatus', [['_maker', 'address']], 'bool', 'View'),
        fn('transfer', [['_to', 'address'], ['_value', 'uint256']], 'bool', 'Nonpayable'),
        {
          anonymous: false,
          inputs: [
            { indexed: true, name: 'from', type: 'address' },
            { indexed: true, name: 'to', type: 'address' },
            { name: 'value', type: 'uint256' },
          ],
          name: 'Transfer',
          type: 'Event',
        },
      ],
    },
    name: 'TetherToken',
    consume_user_resource_percent: 100,
  };
}
