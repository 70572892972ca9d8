import { TronWeb, utils } from 'tronweb';
import type { ChainView } from './node';
import { chainParameters, param, priceHistory } from './params';
import { canDelegate } from './stake';
import { extraContractDescriptor } from './contracts';
import { contractDescriptor } from './usdt';
import { accountJson, accountNetJson, accountResourceJson, blockJson, hexUtf8, txInfoJson, txJson } from './views';

/**
 * The subset of java-tron's HTTP API that tronweb v6 calls for transfers,
 * TRC-20 calls and chain reads. Each handler serves `wallet/<name>`; those
 * marked `solidity` also serve `walletsolidity/<name>` as of the solidified
 * block. Requests may come as a POST body or GET query, as on a real node.
 */

export type Params = Record<string, unknown>;

interface Route {
  solidity: boolean;
  handle(node: ChainView, params: Params, solid: boolean): unknown;
}

export class BadRequest extends Error {}

function address(params: Params, key: string): string {
  const value = params[key];
  if (typeof value !== 'string' || !TronWeb.isAddress(value)) throw new BadRequest(`Invalid ${key}`);
  return TronWeb.address.toHex(value).toLowerCase();
}

function integer(params: Params, key: string, fallback?: number): number {
  const value = params[key] ?? fallback;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new BadRequest(`Invalid ${key}`);
  return n;
}

const ZERO_ADDRESS = '410000000000000000000000000000000000000000';

/** Contract call fields shared by the trigger endpoints; read-only calls may leave the owner out (tronweb sends ''). */
function contractCall(params: Params, ownerRequired = false) {
  const selector = typeof params.function_selector === 'string' ? params.function_selector.replace(/\s/g, '') : '';
  const parameter = typeof params.parameter === 'string' ? params.parameter : '';
  const data = selector
    ? utils.ethersUtils.keccak256(utils.ethersUtils.toUtf8Bytes(selector)).slice(2, 10) + parameter
    : typeof params.data === 'string'
      ? params.data
      : '';
  if (!/^([0-9a-f]{2})*$/i.test(data)) throw new BadRequest('Invalid parameter');
  return {
    owner: ownerRequired || params.owner_address ? address(params, 'owner_address') : ZERO_ADDRESS,
    contract: address(params, 'contract_address'),
    data: data.toLowerCase(),
    callValue: BigInt(integer(params, 'call_value', 0)),
  };
}

const failure = (code: string, message: string) => ({ result: { code, message: hexUtf8(message) } });
const NO_CONTRACT = 'No contract or not a smart contract';

function blockOrEmpty(node: ChainView, number: number, solid: boolean, withTransactions = true) {
  const record = node.block(number);
  return record && (!solid || number <= node.solidNumber()) ? blockJson(record, withTransactions) : {};
}

function committedTx(node: ChainView, params: Params, solid: boolean) {
  const found = typeof params.value === 'string' ? node.findTx(params.value.toLowerCase()) : undefined;
  return found && (!solid || found.block.header.number <= node.solidNumber()) ? found : undefined;
}

/** The resource code of a query: 0 / "BANDWIDTH" or 1 / "ENERGY". */
function resourceParam(params: Params, key: string): 'BANDWIDTH' | 'ENERGY' {
  const value = params[key];
  if (value === undefined || value === 0 || value === '0' || value === 'BANDWIDTH') return 'BANDWIDTH';
  if (value === 1 || value === '1' || value === 'ENERGY') return 'ENERGY';
  throw new BadRequest(`Invalid ${key}`);
}

/** A stake owner read: the account and its state at the view's head. */
function stakeOwner(node: ChainView, params: Params, key: string, solid = false) {
  const hex = address(params, key);
  const at = solid ? node.block(node.solidNumber()) : node.head();
  return { hex, state: node.accounts(solid).get(hex), now: (at ?? node.head()).header.timestamp };
}

const ROUTES: Record<string, Route> = {
  getnowblock: { solidity: true, handle: (node, _p, solid) => blockOrEmpty(node, solid ? node.solidNumber() : node.head().header.number, solid) },
  getblock: {
    solidity: true,
    handle: (node, p, solid) => {
      const detail = p.detail === true || p.detail === 'true';
      const idOrNum = p.id_or_num;
      if (typeof idOrNum === 'string' && /^[0-9a-f]{64}$/i.test(idOrNum)) {
        const record = node.blockById(idOrNum.toLowerCase());
        return record ? blockOrEmpty(node, record.header.number, solid, detail) : {};
      }
      const number = idOrNum === undefined ? (solid ? node.solidNumber() : node.head().header.number) : integer(p, 'id_or_num');
      return blockOrEmpty(node, number, solid, detail);
    },
  },
  getblockbynum: { solidity: true, handle: (node, p, solid) => blockOrEmpty(node, integer(p, 'num'), solid) },
  getblockbyid: {
    solidity: true,
    handle: (node, p, solid) => {
      const record = typeof p.value === 'string' ? node.blockById(p.value.toLowerCase()) : undefined;
      return record ? blockOrEmpty(node, record.header.number, solid) : {};
    },
  },
  getblockbylimitnext: {
    solidity: true,
    handle: (node, p, solid) => {
      const start = integer(p, 'startNum');
      const end = Math.min(integer(p, 'endNum'), start + 100);
      const blocks = [];
      for (let n = start; n < end; n++) {
        const block = blockOrEmpty(node, n, solid);
        if ('blockID' in block) blocks.push(block);
      }
      return blocks.length ? { block: blocks } : {};
    },
  },
  getaccount: {
    solidity: true,
    handle: (node, p, solid) => {
      const hex = address(p, 'address');
      const state = node.accounts(solid).get(hex);
      const account = accountJson(hex, state, node.freeNetUsed(state));
      // java-tron's AccountType: a contract's account says so (Normal, the zero value, is left out).
      return node.contractAt(hex) && 'address' in account ? { ...account, type: 'Contract' } : account;
    },
  },
  getaccountnet: {
    solidity: false,
    handle: (node, p) => {
      const { state, now } = stakeOwner(node, p, 'address');
      return accountNetJson(state, node.freeNetUsed(state), param('freeBandwidthBytes'), node.network(), now);
    },
  },
  getaccountresource: {
    solidity: false,
    handle: (node, p) => {
      const { state, now } = stakeOwner(node, p, 'address');
      return accountResourceJson(state, node.freeNetUsed(state), param('freeBandwidthBytes'), node.network(), now);
    },
  },
  // Stake 2.0 reads, in java-tron's reply shapes.
  getdelegatedresourcev2: {
    solidity: true,
    handle: (node, p, solid) => {
      const from = address(p, 'fromAddress');
      const to = address(p, 'toAddress');
      const state = node.accounts(solid).get(from);
      const entries = [false, true].flatMap((lock) => {
        const d = state.delegations[`${to}:${lock}`];
        if (!d) return [];
        return [
          {
            from,
            to,
            ...(d.bandwidth > 0n ? { frozen_balance_for_bandwidth: d.bandwidth } : {}),
            ...(d.energy > 0n ? { frozen_balance_for_energy: d.energy } : {}),
            ...(d.bandwidthExpire ? { expire_time_for_bandwidth: d.bandwidthExpire } : {}),
            ...(d.energyExpire ? { expire_time_for_energy: d.energyExpire } : {}),
          },
        ];
      });
      return entries.length ? { delegatedResource: entries } : {};
    },
  },
  getdelegatedresourceaccountindexv2: {
    solidity: true,
    handle: (node, p, solid) => {
      const hex = address(p, 'value');
      const state = node.accounts(solid).get(hex);
      const toAccounts = [...new Set(Object.values(state.delegations).map((d) => d.to))];
      if (!toAccounts.length && !state.delegators.length) return {};
      return { account: hex, ...(state.delegators.length ? { fromAccounts: state.delegators } : {}), ...(toAccounts.length ? { toAccounts } : {}) };
    },
  },
  getcandelegatedmaxsize: {
    solidity: true,
    handle: (node, p, solid) => {
      const { state, now } = stakeOwner(node, p, 'owner_address', solid);
      const max = canDelegate(state, resourceParam(p, 'type'), node.network(), now);
      return max > 0n ? { max_size: max } : {};
    },
  },
  getavailableunfreezecount: {
    solidity: true,
    handle: (node, p, solid) => {
      const { state, now } = stakeOwner(node, p, 'owner_address', solid);
      return { count: Number(param('unfreezeMaxTimes')) - state.unfrozen.filter((u) => u.expireTime > now).length };
    },
  },
  getcanwithdrawunfreezeamount: {
    solidity: true,
    handle: (node, p, solid) => {
      const { state, now } = stakeOwner(node, p, 'owner_address', solid);
      const at = p.timestamp === undefined ? now : integer(p, 'timestamp');
      const amount = state.unfrozen.filter((u) => u.expireTime <= at).reduce((sum, u) => sum + u.amount, 0n);
      return amount > 0n ? { amount } : {};
    },
  },
  gettransactionbyid: {
    solidity: true,
    handle: (node, p, solid) => {
      const found = committedTx(node, p, solid);
      return found ? txJson(found.tx) : {};
    },
  },
  gettransactioninfobyid: {
    solidity: true,
    handle: (node, p, solid) => {
      const found = committedTx(node, p, solid);
      return found ? txInfoJson(found.tx, found.block) : {};
    },
  },
  gettransactioninfobyblocknum: {
    solidity: true,
    handle: (node, p, solid) => {
      const number = integer(p, 'num');
      const record = node.block(number);
      if (!record || (solid && number > node.solidNumber())) return [];
      return record.txs.map((tx) => txInfoJson(tx, record));
    },
  },
  getchainparameters: { solidity: false, handle: () => ({ chainParameter: chainParameters() }) },
  getenergyprices: { solidity: false, handle: () => ({ prices: priceHistory('energyFeeSun') }) },
  getbandwidthprices: { solidity: false, handle: () => ({ prices: priceHistory('bandwidthFeeSun') }) },
  getcontract: {
    solidity: false,
    handle: (node, p) => {
      const hex = address(p, 'value');
      const kind = node.contractAt(hex);
      const origin = TronWeb.address.fromHex(node.faucet);
      return kind === 'USDT' ? contractDescriptor(hex, origin) : kind ? extraContractDescriptor(hex, origin) : {};
    },
  },
  triggersmartcontract: {
    solidity: false,
    handle: (node, p) => {
      const call = contractCall(p, true);
      if (!node.contractAt(call.contract)) return failure('CONTRACT_VALIDATE_ERROR', NO_CONTRACT);
      const tx = node.buildUnsigned({ type: 'TriggerSmartContract', ...call }, integer(p, 'fee_limit', 0));
      return { result: { result: true }, transaction: { visible: false, txID: tx.txID, raw_data: tx.rawData, raw_data_hex: tx.rawDataHex } };
    },
  },
  triggerconstantcontract: {
    solidity: true,
    handle: (node, p, solid) => {
      const call = contractCall(p);
      const outcome = node.call(call.contract, call.owner, call.data, call.callValue, solid);
      if (!outcome) return failure('CONTRACT_VALIDATE_ERROR', NO_CONTRACT);
      const tx = node.buildUnsigned({ type: 'TriggerSmartContract', ...call });
      return {
        result: outcome.ok ? { result: true } : failure('CONTRACT_EXE_ERROR', 'REVERT opcode executed').result,
        energy_used: outcome.energy,
        constant_result: [outcome.returnData],
        transaction: { ret: [outcome.ok ? {} : { ret: 'FAILED' }], visible: false, txID: tx.txID, raw_data: tx.rawData, raw_data_hex: tx.rawDataHex },
      };
    },
  },
  estimateenergy: {
    solidity: true,
    handle: (node, p, solid) => {
      const call = contractCall(p);
      const outcome = node.call(call.contract, call.owner, call.data, call.callValue, solid);
      if (!outcome) return failure('CONTRACT_VALIDATE_ERROR', NO_CONTRACT);
      if (!outcome.ok) return failure('OTHER_ERROR', 'REVERT opcode executed');
      return { result: { result: true }, energy_required: outcome.energy };
    },
  },
  broadcasttransaction: { solidity: false, handle: (node, p) => node.broadcast(p) },
};

/** Routes `/wallet/<name>` and `/walletsolidity/<name>`; undefined when the path is not served. */
export function resolve(pathname: string): { route: Route; solid: boolean } | undefined {
  const match = /^\/(wallet|walletsolidity)\/([a-z0-9]+)$/i.exec(pathname);
  if (!match) return undefined;
  const route = ROUTES[match[2]!.toLowerCase()];
  const solid = match[1]!.toLowerCase() === 'walletsolidity';
  return route && (!solid || route.solidity) ? { route, solid } : undefined;
}
