import { TronWeb, utils } from 'tronweb';

// The devnet's USDT lives at an address no key controls, derived from a fixed
// label, so that every devnet (and the chain layer's default) agrees on it.
const DEVNET_USDT = TronWeb.address.fromHex(
  '41' + utils.ethersUtils.keccak256(utils.ethersUtils.toUtf8Bytes('tron-invoicing devnet USDT')).slice(-40),
);

/**
 * `explorerTx`: where a public block explorer (Tronscan) shows a transaction of the network, the txid appended;
 * the payment page links each payment there (issue 38). The devnet has none.
 */
export const NETWORKS = {
  devnet: { fullNodeUrl: 'http://127.0.0.1:9090', usdtContract: DEVNET_USDT, explorerTx: null },
  mainnet: { fullNodeUrl: 'https://api.trongrid.io', usdtContract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', explorerTx: 'https://tronscan.org/#/transaction/' },
  shasta: { fullNodeUrl: 'https://api.shasta.trongrid.io', usdtContract: 'TG3XXyExBkPp9nzdajDZsozEu4BkaSJozs', explorerTx: 'https://shasta.tronscan.org/#/transaction/' },
  nile: { fullNodeUrl: 'https://nile.trongrid.io', usdtContract: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', explorerTx: 'https://nile.tronscan.org/#/transaction/' },
} as const;

export type NetworkName = keyof typeof NETWORKS;
