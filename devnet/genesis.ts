import { TronWeb } from 'tronweb';
import { NETWORKS } from '@/lib/networks';
import type { DevnetEnv } from '@/lib/config';

export interface DevnetKey {
  address: string;
  /** Hex without 0x, the form tronweb signs with. */
  privateKey: string;
}

function fromMnemonic(mnemonic: string, index: number): DevnetKey {
  const account = TronWeb.fromMnemonic(mnemonic.trim(), `m/44'/195'/0'/0/${index}`);
  return { address: account.address, privateKey: account.privateKey.replace(/^0x/, '') };
}

function fromPrivateKey(privateKey: string): DevnetKey {
  const address = TronWeb.address.fromPrivateKey(privateKey);
  if (!address) throw new Error('DEVNET_FAUCET_PRIVATE_KEY is not a valid secp256k1 key');
  return { address, privateKey };
}

/** The faucet: account 0 of the devnet mnemonic unless a key is given. */
export function faucetKey(env: Pick<DevnetEnv, 'DEVNET_MNEMONIC' | 'DEVNET_FAUCET_PRIVATE_KEY'>): DevnetKey {
  return env.DEVNET_FAUCET_PRIVATE_KEY ? fromPrivateKey(env.DEVNET_FAUCET_PRIVATE_KEY) : fromMnemonic(env.DEVNET_MNEMONIC, 0);
}

/** The block producer; it only signs block headers. */
export function witnessKey(env: Pick<DevnetEnv, 'DEVNET_MNEMONIC'>): DevnetKey {
  return fromMnemonic(env.DEVNET_MNEMONIC, 1);
}

/** The emulated energy rental provider's account (devnet/rental.ts). */
export function rentalProviderKey(env: Pick<DevnetEnv, 'DEVNET_MNEMONIC'>): DevnetKey {
  return fromMnemonic(env.DEVNET_MNEMONIC, 2);
}

export const USDT_CONTRACT = NETWORKS.devnet.usdtContract;
