import { TronWeb } from 'tronweb';
import { z } from 'zod';
import { parseEnv } from '@/lib/env';
import { NETWORKS, type NetworkName } from './networks';

export interface ChainConfig {
  fullNodeUrl: string;
  /** Sent as TRON-PRO-API-KEY (TronGrid). */
  apiKey: string | null;
  /** Base58 address of the TRC-20 USDT contract. */
  usdtContract: string;
  /** How long a built transaction stays valid, from the head block's time. */
  txExpirationMs: number;
}

const tronAddress = (name: string) => z.string().refine((a) => a.startsWith('T') && TronWeb.isAddress(a), `${name} must be a base58 Tron address (T...)`);

const schema = z.object({
  TRON_NETWORK: z.enum(Object.keys(NETWORKS) as [NetworkName, ...NetworkName[]], { message: `TRON_NETWORK must be one of ${Object.keys(NETWORKS).join(', ')}` }).default('devnet'),
  TRON_FULL_NODE_URL: z.string().url('TRON_FULL_NODE_URL must be a URL like https://api.trongrid.io').optional(),
  TRON_API_KEY: z.string().min(1).optional(),
  TRON_USDT_CONTRACT: tronAddress('TRON_USDT_CONTRACT').optional(),
  // java-tron refuses expirations more than 24 h past its head block.
  TRON_TX_EXPIRATION_MS: z.coerce
    .number()
    .int('TRON_TX_EXPIRATION_MS must be whole milliseconds')
    .min(10_000, 'TRON_TX_EXPIRATION_MS must be at least 10000')
    .max(86_400_000, 'TRON_TX_EXPIRATION_MS must be at most 86400000 (24 h)')
    .default(60_000),
});

/** Reads the chain settings from an environment, naming every bad variable at once. */
export function parseChainConfig(env: Record<string, string | undefined>): ChainConfig {
  const c = parseEnv(schema, env, 'chain configuration');
  const network = NETWORKS[c.TRON_NETWORK];
  return {
    fullNodeUrl: c.TRON_FULL_NODE_URL ?? network.fullNodeUrl,
    apiKey: c.TRON_API_KEY ?? null,
    usdtContract: c.TRON_USDT_CONTRACT ?? network.usdtContract,
    txExpirationMs: c.TRON_TX_EXPIRATION_MS,
  };
}
