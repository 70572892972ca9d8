import { TronWeb, utils } from 'tronweb';

// The devnet's USDT lives at an address no key controls, derived from a fixed
// label, so that every devnet (and the chain layer's default) agrees on it.
const DEVNET_USDT = TronWeb.address.fromHex(
  '41' + utils.ethersUtils.keccak256(utils.ethersUtils.toUtf8Bytes('tron-invoicing devnet USDT')).slice(-40),
);

/**
 * `explorerTx`: where a public block explorer (Tronscan) shows a transaction of the network, the txid appended;
 * the payment page links each payment there (issue 38). The devnet has none.
 *
 * `trustWalletCoin`: the network's coin in Trust Wallet's Universal Asset IDs (`c195` is Tron mainnet,
 * SLIP-44 195), for the payment page's "Open in Trust Wallet" link (issue 38); null where Trust Wallet
 * has no such network, so that no link sends a customer's mainnet money to a test network's address.
 */
export const NETWORKS = {
  devnet: { fullNodeUrl: 'http://127.0.0.1:9090', usdtContract: DEVNET_USDT, explorerTx: null, trustWalletCoin: null },
  mainnet: { fullNodeUrl: 'https://api.trongrid.io', usdtContract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', explorerTx: 'https://tronscan.org/#/transaction/', trustWalletCoin: 'c195' },
  shasta: { fullNodeUrl: 'https://api.shasta.trongrid.io', usdtContract: 'TG3XXyExBkPp9nzdajDZsozEu4BkaSJozs', explorerTx: 'https://shasta.tronscan.org/#/transaction/', trustWalletCoin: null },
  nile: { fullNodeUrl: 'https://nile.trongrid.io', usdtContract: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', explorerTx: 'https://nile.tronscan.org/#/transaction/', trustWalletCoin: null },
} as const;

export type NetworkName = keyof typeof NETWORKS;

/** Trust Wallet's Universal Asset ID of each token the service takes: a TRC-20 token is `<coin>_t<contract>`. */
export type TrustWalletAssets = { TRX: string; USDT: string };

/**
 * The assets an "Open in Trust Wallet" link names on `network`, USDT by the contract the service
 * watches (`TRON_USDT_CONTRACT`); null where Trust Wallet has no such network (every one but mainnet).
 */
export function trustWalletAssets(network: NetworkName, usdtContract: string): TrustWalletAssets | null {
  const coin = NETWORKS[network].trustWalletCoin;
  return coin === null ? null : { TRX: coin, USDT: `${coin}_t${usdtContract}` };
}
